/**
 * The published profile schema and the reference page are generated from the zod schema: both committed files must
 * be what the schema gives today (`npm run profile-reference` rewrites them), and every field must say what it is.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { profileReferenceMarkdown } from '../../src/contract/profile-reference.js';
import { profileJsonSchema } from '../../src/contract/profiles.js';

const committed = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

describe('the profile schema and reference', () => {
  it('schemas/profile.schema.json is up to date with the zod schema', () => {
    expect(JSON.parse(committed('schemas/profile.schema.json')), 'stale: run `npm run profile-reference`').toEqual(profileJsonSchema());
  });

  it('docs/profile-reference.md is up to date with the zod schema', () => {
    expect(committed('docs/profile-reference.md'), 'stale: run `npm run profile-reference`').toBe(profileReferenceMarkdown());
  });

  it('lists every field of the schema with a description', () => {
    const rows = profileReferenceMarkdown()
      .split('\n')
      .filter((l) => l.startsWith('| `'));
    expect(rows.length).toBeGreaterThan(80);
    const undescribed = rows.filter((r) => r.trimEnd().endsWith('|  |'));
    expect(undescribed).toEqual([]);
    for (const field of ['create.route.path', 'idempotency.window_s', 'webhooks.signing', 'find.filters[].by', 'results.mode'])
      expect(rows.some((r) => r.startsWith(`| \`${field}\``))).toBe(true);
  });
});
