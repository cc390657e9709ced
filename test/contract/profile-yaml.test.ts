/**
 * YAML profiles: read with the same checks as JSON, every problem located at the line and column of the key or value
 * to mend — the same positions the JSON reader gives for the same mistake.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseProfileText, profileFormat } from '../../src/contract/profile-check.js';

const EX = join(import.meta.dirname, '..', '..', 'examples', 'profiles');
const yaml = readFileSync(join(EX, 'reports.yaml'), 'utf8');
const json = readFileSync(join(EX, 'reports.json'), 'utf8');

/** 1-based line and column of the first occurrence of `needle`. */
function where(text: string, needle: string): { line: number; col: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return { line: line + 1, col: lines[line]!.indexOf(needle) + 1 };
}

function problems(text: string) {
  const r = parseProfileText(text);
  if (r.ok) throw new Error('accepted');
  return r.problems;
}

describe('YAML profiles', () => {
  it('the YAML example is the JSON example, field for field', () => {
    const y = parseProfileText(yaml, 'yaml');
    const j = parseProfileText(json, 'json');
    if (!y.ok || !j.ok) throw new Error('refused');
    const { $schema: _, ...rest } = j.profile;
    expect(y.profile).toEqual(rest);
    expect(yaml.trim().split('\n').length).toBeLessThan(80);
  });

  it('tells YAML from JSON by the file name, else by the text', () => {
    expect(profileFormat('{}', 'a.yml')).toBe('yaml');
    expect(profileFormat('a: 1', 'a.YAML')).toBe('yaml');
    expect(profileFormat('a: 1', 'a.json')).toBe('json');
    expect(profileFormat('  {"a": 1}')).toBe('json');
    expect(profileFormat('profile: 1')).toBe('yaml');
  });

  it('an unknown field: at its key', () => {
    const text = yaml.replace('view: #', 'colour: blue\nview: #');
    const [p, ...rest] = problems(text);
    expect(rest).toEqual([]);
    expect(p).toMatchObject({ ...where(text, 'colour:'), path: 'colour', fix: expect.stringContaining('remove "colour"') });
  });

  it('an unknown field in a flow map: at its key inside the braces', () => {
    const text = yaml.replace('id: { source: generated, prefix: job_ }', 'id: { source: generated, prefix: job_, colour: 1 }');
    expect(problems(text)[0]).toMatchObject({ ...where(text, 'colour'), path: 'id.colour' });
  });

  it('a state value mapped to no engine state: at that value', () => {
    const text = yaml.replace('expired: expired', 'expired: finished');
    const [p] = problems(text);
    expect(p).toMatchObject({ ...where(text, 'expired: finished'), path: 'state.values.expired' });
    expect(p!.fix).toMatch(/use one of "queued"/);
  });

  it('a route without {id}: at its path', () => {
    const text = yaml.replace('path: "/v1/reports/{id}/cancel"', 'path: /v1/reports/cancel');
    const [p] = problems(text);
    expect(p).toMatchObject({ ...where(text, 'path: /v1/reports/cancel'), path: 'cancel.route.path' });
    expect(p!.message).toBe('the cancel route has no {id}');
  });

  it('a missing field: at the map that lacks it', () => {
    const text = yaml.replace('  status: 202\n  body:\n    job_id', '  body:\n    job_id');
    expect(problems(text)[0]).toMatchObject({ ...where(text, 'create:'), path: 'create.status' });
  });

  it('the same mistake is located the same in YAML and JSON (the key, one-based)', () => {
    const j = json.replace('"expired": "expired"', '"expired": "finished"');
    const y = yaml.replace('expired: expired', 'expired: finished');
    expect(problems(j)[0]).toMatchObject(where(j, '"expired": "finished"'));
    expect(problems(y)[0]).toMatchObject(where(y, 'expired: finished'));
  });

  it('a YAML syntax error: where the parser stopped, and how to mend it', () => {
    const text = yaml.replace('  updated_at:', '  bad [1\n  updated_at:');
    const [p] = problems(text);
    expect(p).toMatchObject({ ...where(text, 'bad [1'), path: '(file)', message: expect.stringMatching(/^not valid YAML: /) });
    const dup = yaml.replace('prefix: /profiles/reports', 'prefix: /profiles/reports\nprefix: /profiles/other');
    expect(problems(dup)[0]).toMatchObject({ line: where(dup, 'prefix: /profiles/other').line, col: 1 });
    expect(problems(dup)[0]!.message).toMatch(/unique/);
  });

  it("a built-in dialect's name (the journal would take its traffic for that dialect's)", () => {
    const text = yaml.replace('name: reports', 'name: openai');
    expect(problems(text)[0]).toMatchObject({ ...where(text, 'name: openai'), path: 'name' });
  });

  it('an alias without its anchor, or aliases multiplying past reason, are refused, never thrown', () => {
    expect(problems('profile: *x\n')[0]!.message).toMatch(/^not valid YAML: Unresolved alias/);
    const laughs = ['a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1]'];
    for (const [n, prev] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
    ])
      laughs.push(`${n}: &${n} [${Array(12).fill(`*${prev}`).join(', ')}]`);
    expect(problems(laughs.join('\n'))[0]!.message).toMatch(/^not valid YAML: Excessive alias count/);
  });

  it('any edit of the example is accepted or refused with positions inside the text, never thrown', () => {
    const lines = yaml.split('\n');
    fc.assert(
      fc.property(fc.nat(lines.length - 1), fc.nat(80), fc.string({ maxLength: 6 }), (at, col, insert) => {
        const edited = [...lines];
        edited[at] = edited[at]!.slice(0, col) + insert + edited[at]!.slice(col);
        const text = edited.join('\n');
        const r = parseProfileText(text, 'yaml');
        if (r.ok) return;
        for (const p of r.problems) {
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.line).toBeLessThanOrEqual(edited.length);
          expect(p.col).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('an empty or scalar document is refused at 1:1, never thrown', () => {
    expect(problems('')[0]).toMatchObject({ line: 1, col: 1, path: '(file)' });
    expect(problems('just text')[0]).toMatchObject({ line: 1, col: 1 });
  });
});
