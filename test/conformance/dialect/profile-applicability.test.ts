import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { notApplicableIn } from '../../../src/conformance/dialect/applicability.js';
import { profileLacks } from '../../../src/conformance/dialect/capabilities.js';
import { carriesRef, profileBody, profileRefFor } from '../../../src/conformance/dialect/profile-input.js';
import { builtinProfileNames, loadProfile } from '../../../src/contract/profile-files.js';
import { getPath } from '../../../src/contract/profile-template.js';
import type { Profile } from '../../../src/contract/profiles.js';
import { catalog } from '../../../src/scenarios/index.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const REPORTS = join(ROOT, 'examples', 'profiles', 'reports.json');
const DOC = join(ROOT, 'docs', 'profile-scenarios.md');

function load(nameOrFile: string): Profile {
  const l = loadProfile(nameOrFile);
  if (!l.ok) throw new Error(JSON.stringify(l.problems));
  return l.profile;
}
const PROFILES = [...builtinProfileNames().map(load), load(REPORTS)];
const op = (id: string) => ({
  operation_id: id,
  kind: 'report',
  input: { account: 'acct_218', range: { start: 'a', end: 'b' }, format: 'csv' },
});

describe('profile applicability (one rule with the dialects)', () => {
  it('native as a profile runs every catalog scenario, as the native dialect does', () => {
    expect(catalog.filter((s) => notApplicableIn(load('native'), s)).map((s) => s.name)).toEqual([]);
  });

  it('derives what a profile lacks from what it declares', () => {
    expect(Object.keys(profileLacks(load('replicate'))).sort()).toEqual(['digest', 'error_row', 'idempotency_key']);
    expect(Object.keys(profileLacks(load('google-lro'))).sort()).toEqual(['digest', 'error_row', 'webhooks']);
    const noCancel = { ...load(REPORTS), cancel: undefined, find: undefined, idempotency: { source: 'none' as const } };
    const na = (name: string) => notApplicableIn(noCancel, catalog.find((s) => s.name === name)!);
    expect(na('cancel-race')).toMatch(/the API has no cancel/);
    expect(na('lost-create-response')).toMatch(/no idempotency key and the API has no lookup route/);
    expect(na('partial-batch')).toBeNull();
  });

  it.each(PROFILES.map((p) => [p.name, p] as const))(
    '%s: the input is a body the API takes, its reference unique per operation',
    (_n, p) => {
      const a = profileBody(p, op('op_1'));
      const b = profileBody(p, op('op_2'));
      for (const f of p.create.required) expect(getPath(a, f), f).not.toBeUndefined();
      expect(carriesRef(a, profileRefFor('op_1'))).toBe(true);
      expect(carriesRef(a, profileRefFor('op_2'))).toBe(false);
      expect(carriesRef(b, profileRefFor('op_2'))).toBe(true);
      // The key a body-key API takes is the client's to choose: the harness never writes it.
      if (p.idempotency.source === 'body') expect(getPath(a, p.idempotency.name)).toBeUndefined();
    },
  );
});

/** docs/profile-scenarios.md: scenario × built-in profile (and the seed's reports example), from notApplicableIn. */
function table(): string {
  const cols = PROFILES;
  const reasons = new Map<string, number>();
  const note = (r: string) => {
    if (!reasons.has(r)) reasons.set(r, reasons.size + 1);
    return reasons.get(r)!;
  };
  const rows = catalog.map((s) => {
    const cells = cols.map((p) => {
      const na = notApplicableIn(p, s);
      return na ? `n/a [${note(na)}]` : 'judged';
    });
    return `| \`${s.name}\` | ${s.invariants.join(', ')} | ${cells.join(' | ')} |`;
  });
  return [
    '# What each catalog scenario means in each built-in profile',
    '',
    'Generated from `notApplicableIn` (src/conformance/dialect/applicability.ts) by',
    '`JOBPROOF_WRITE_DOCS=1 npx vitest run test/conformance/dialect/profile-applicability.test.ts`; the test fails when',
    'this page no longer matches the code. `judged`: `certify --profile NAME` runs the scenario in that API and judges',
    'the client by its invariants; `n/a`: the case is `not_applicable` with the reason below (what the profile lacks,',
    'then what the scenario needs of it). A client that does not listen for webhooks (`certify` without `--webhooks`,',
    'always so with `--profile` today) runs the webhook scenarios it can on polling and skips those that test',
    "nothing but webhook handling, as in any API. `reports` is the seed's example, examples/profiles/reports.json.",
    '',
    `| scenario | probes | ${cols.map((p) => p.name).join(' | ')} |`,
    `| --- | --- | ${cols.map(() => '---').join(' | ')} |`,
    ...rows,
    '',
    '## Reasons',
    '',
    ...[...reasons].map(([r, n]) => `${n}. ${r}`),
    '',
  ].join('\n');
}

describe('docs/profile-scenarios.md', () => {
  it('is the table the applicability function gives', () => {
    const want = table();
    if (process.env.JOBPROOF_WRITE_DOCS === '1') writeFileSync(DOC, want);
    expect(existsSync(DOC) ? readFileSync(DOC, 'utf8') : '', 'regenerate with JOBPROOF_WRITE_DOCS=1').toBe(want);
  });
});
