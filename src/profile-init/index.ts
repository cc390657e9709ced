import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { CONFIRM_KEY } from '../contract/profile-confirm.js';
import { type Draft, draftProfile } from './draft.js';

/** `jobproof profile init`'s work: read the document, draft, and say what was found and what was guessed. */
export type InitResult = { ok: true; text: string; report: string; guesses: number } | { ok: false; message: string };

export function initFromFile(from: string, name?: string): InitResult {
  let text: string;
  try {
    text = readFileSync(from, 'utf8');
  } catch (err) {
    return { ok: false, message: `cannot read ${from}: ${(err as Error).message}` };
  }
  const d = draftProfile(text, name);
  if (!d.ok) return { ok: false, message: `${from}: ${d.message}` };
  return { ok: true, text: `${JSON.stringify(d.profile, null, 2)}\n`, report: report(d), guesses: d.guesses.length };
}

function report(d: Extract<Draft, { ok: true }>): string {
  const lines = [`profile '${d.profile.name}' drafted; found in the document:`, ...d.found.map((f) => `  ${f}`)];
  lines.push(`${d.guesses.length} guesses to confirm (each in ${CONFIRM_KEY}; profile check refuses the draft until they are deleted):`);
  for (const g of d.guesses) lines.push(`  ${g.path}: ${g.guess} — ${g.why}`);
  return `${lines.join('\n')}\n`;
}

/** Write the draft whole or not at all: a temporary file, flushed, renamed over the target. */
export function writeDurably(file: string, text: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, file);
}

export { draftProfile } from './draft.js';
