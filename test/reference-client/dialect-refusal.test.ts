import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// The built CLI (npm run build first).
const cli = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

describe('jobproof client and JOBPROOF_DIALECT (client-protocol.md)', () => {
  it('refuses a dialect it does not speak with exit 2 and says where the dialect clients are; native is the default', () => {
    const state = mkdtempSync(join(tmpdir(), 'jobproof-dialect-refusal-'));
    const run = (dialect?: string) =>
      spawnSync(process.execPath, [cli, 'client', 'show', 'op_x'], {
        env: { ...process.env, JOBPROOF_STATE: state, JOBPROOF_PROVIDER_URL: 'http://127.0.0.1:9', JOBPROOF_TOKEN: 't', JOBPROOF_DIALECT: dialect },
        encoding: 'utf8',
      });
    const openai = run('openai');
    expect(openai.status).toBe(2);
    expect(openai.stderr).toMatch(/JOBPROOF_DIALECT=openai.*examples\/sdk-clients\/durable-openai\.mjs/);
    // Native (or unset): the ordinary refusal of an unknown operation, not a dialect one.
    for (const d of [undefined, 'native']) {
      const r = run(d);
      expect(r.status).toBe(2);
      expect(r.stderr).not.toMatch(/JOBPROOF_DIALECT/);
    }
  });
});
