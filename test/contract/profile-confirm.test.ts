/**
 * A profile with unconfirmed guesses (`x-jobproof-confirm`, written by `profile init`) is refused by the checker —
 * one problem per guess, at the guessed field's line — and is checked like any other once the list is empty or gone.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseProfileText } from '../../src/contract/profile-check.js';
import { CONFIRM_KEY } from '../../src/contract/profile-confirm.js';

const reports = JSON.parse(readFileSync(join(import.meta.dirname, '../../examples/profiles/reports.json'), 'utf8')) as Record<
  string,
  unknown
>;
const text = (confirm: unknown) => JSON.stringify({ [CONFIRM_KEY]: confirm, ...reports }, null, 2);

describe('x-jobproof-confirm', () => {
  it('refuses each unconfirmed guess at the line of the field it names', () => {
    const t = text([
      { path: 'idempotency.name', guess: 'the key header is Idempotency-Key', why: 'test' },
      { path: 'state.values.expired', guess: 'expired means expired', why: 'test' },
    ]);
    const r = parseProfileText(t);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const lines = t.split('\n');
    expect(r.problems.map((p) => [p.path, lines[p.line - 1]!.trim()])).toEqual([
      ['idempotency.name', '"name": "Idempotency-Key",'],
      ['state.values.expired', '"expired": "expired"'],
    ]);
    expect(r.problems[0]!.message).toBe('unconfirmed guess: the key header is Idempotency-Key (test)');
    expect(r.problems[0]!.fix).toMatch(/then delete this entry from x-jobproof-confirm/);
  });

  it('reports the other mistakes of a draft beside its guesses', () => {
    const r = parseProfileText(JSON.stringify({ [CONFIRM_KEY]: [{ path: 'view', guess: 'g', why: 'w' }], ...reports, colour: 'blue' }));
    expect(r.ok ? [] : r.problems.map((p) => p.path)).toEqual(['view', 'colour']);
  });

  it('refuses a list that is not {path, guess, why} entries', () => {
    const r = parseProfileText(text(['confirm me']));
    expect(r.ok ? [] : r.problems.map((p) => p.message)).toEqual([`${CONFIRM_KEY} is not a list of {path, guess, why}`]);
  });

  it('accepts the profile once every guess is confirmed (an empty list, or none)', () => {
    expect(parseProfileText(text([])).ok).toBe(true);
    expect(parseProfileText(JSON.stringify(reports)).ok).toBe(true);
  });
});
