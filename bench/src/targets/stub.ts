import { readFileSync } from 'node:fs';

/** The fixed answers every comparison target serves: bodies captured from the real provider, so sizes match. */
export interface Stub {
  status: { status: number; body: string };
  create: { status: number; body: string };
}

export function readStub(path: string | undefined): Stub {
  if (!path) throw new Error('usage: <target>.js STUB_JSON');
  return JSON.parse(readFileSync(path, 'utf8')) as Stub;
}
