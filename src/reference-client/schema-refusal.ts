import { prettifyError, ZodError } from 'zod';

/**
 * How a schema's refusal reads on stderr (exit 2). Apart from cli.ts so that zod is loaded only when a verb that
 * parses with it fails, and with named imports so that the bundle (scripts/bundle-client.mjs) keeps only what is used of zod.
 */
export function schemaRefusal(err: Error): string {
  return err instanceof ZodError ? prettifyError(err) : err.message;
}
