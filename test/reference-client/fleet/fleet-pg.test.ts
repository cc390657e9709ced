import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pgUrl } from '../../helpers/pg.js';
import { fleetDrill } from './drill.js';

/**
 * The fleet drill of issue 15 on a real PostgreSQL server: worker processes (`dist/`, run `npm run build` first)
 * killed and paused past their lease. A short run here; the 50-signal run behind JOBPROOF_LONG=1.
 */
const url = pgUrl();
const signals = process.env.JOBPROOF_LONG ? 50 : 8;

describe.skipIf(url === null)('fleet on PostgreSQL', () => {
  it(
    `three workers, ${signals} SIGKILLs and SIGSTOPs past the lease: no duplicate create, no lost result, no stale write`,
    async () => {
      expect(
        existsSync(join(import.meta.dirname, '..', '..', '..', 'dist', 'reference-client', 'bin.js')),
        'run `npm run build` first',
      ).toBe(true);
      const f = await fleetDrill(url!, signals, 20261201);
      console.log(`fleet drill (PostgreSQL): ${JSON.stringify(f)}`);
      expect(f.kills + f.stops).toBe(signals);
      expect(f.duplicateCreates).toBe(0);
      expect(f.lostResults).toBe(0);
      expect(f.historyLinesOutOfFence).toBe(0);
      expect(f.takeovers).toBeGreaterThan(0);
    },
    process.env.JOBPROOF_LONG ? 600_000 : 180_000,
  );
});
