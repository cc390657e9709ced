/**
 * OpenAI's published contract (openai/openai-openapi, pinned: test/fixtures/vendor/openai-openapi/README.md) as a
 * validator: `check('Batch', body)` lists what a body breaks of the document's component schema, [] if nothing.
 *
 * The document types some fields as non-null that its own examples send as `null` (a `validating` batch's
 * `expires_at`, every timestamp of a state not reached yet). OVERSTATED lists each one; the schema checked widens
 * exactly those to also allow `null`, nothing else. openai-openapi.test.ts checks that each entry is justified by
 * a `null` in the document's own examples (EXAMPLE_NULLS) or named in BEYOND_EXAMPLES with its reason.
 */
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';

const DIR = new URL('../../fixtures/vendor/openai-openapi/', import.meta.url);

interface SchemaDoc {
  components: { schemas: Record<string, { properties?: Record<string, unknown> }> };
}

export const document: SchemaDoc = JSON.parse(readFileSync(new URL('schemas.json', DIR), 'utf8'));
/** The response examples of the batch and file paths, as the document prints them (not always valid JSON). */
export const examples: Record<string, string> = JSON.parse(readFileSync(new URL('examples.json', DIR), 'utf8'));

/** Fields typed non-null that the document's own examples of the batch endpoints send as `null`. */
export const EXAMPLE_NULLS: Record<string, string[]> = {
  Batch: [
    'errors',
    'output_file_id',
    'error_file_id',
    'in_progress_at',
    'expires_at',
    'finalizing_at',
    'completed_at',
    'failed_at',
    'expired_at',
    'cancelling_at',
    'cancelled_at',
  ],
};

/** Overstated fields the examples do not show as `null`, each with why the answer has to send it that way. */
export const BEYOND_EXAMPLES: Record<string, Record<string, string>> = {
  ListBatchesResponse: {
    first_id: 'an empty page has no first batch: the fake sends null (openai-node reads neither id; it pages by the last item)',
    last_id: 'an empty page has no last batch: the fake sends null',
  },
  ListFilesResponse: {
    first_id: 'required as a string, but an empty page has no first file: the fake sends null',
    last_id: 'required as a string, but an empty page has no last file: the fake sends null',
  },
};

export const OVERSTATED: Record<string, string[]> = {
  ...EXAMPLE_NULLS,
  ...Object.fromEntries(Object.entries(BEYOND_EXAMPLES).map(([name, fields]) => [name, Object.keys(fields)])),
};

function widened(doc: SchemaDoc): SchemaDoc {
  const copy: SchemaDoc = structuredClone(doc);
  for (const [name, fields] of Object.entries(OVERSTATED)) {
    const props = copy.components.schemas[name]?.properties;
    for (const f of fields) {
      if (!props?.[f]) throw new Error(`OVERSTATED names ${name}.${f}, which the document does not have`);
      props[f] = { anyOf: [props[f], { type: 'null' }] };
    }
  }
  return copy;
}

// The document's own keywords (x-oaiMeta, discriminator, formats such as `unixtime`) are annotations here.
const ajv = new Ajv2020.default({ strict: false, validateFormats: false, allErrors: true });
ajv.addSchema(widened(document), 'openai-openapi');

export function check(schema: string, body: unknown): string[] {
  const validate = ajv.getSchema(`openai-openapi#/components/schemas/${schema}`);
  if (!validate) throw new Error(`no schema ${schema} in the fixture`);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${schema}${e.instancePath} ${e.message} ${JSON.stringify(e.params)}`);
}
