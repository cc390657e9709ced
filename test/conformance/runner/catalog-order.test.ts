import { describe, expect, it } from 'vitest';
import { runCatalog } from '../../../src/conformance/catalog-run.js';
import { expectedRunMs, longestFirst } from '../../../src/conformance/expected-time.js';
import { createReferenceClient } from '../../../src/reference-client/index.js';
import { catalog, getScenario, scaleScenarioTime } from '../../../src/scenarios/index.js';

describe('catalog lanes: longest expected run first, results in catalog order', () => {
  it('expects a pause, a killed worker, a never-ending job or a delay to take longer than a plain run', () => {
    const plain = expectedRunMs(getScenario('partial-batch'));
    for (const name of ['stale-lease', 'crash-after-job-id', 'never-finishes', 'changed-parameters', 'provider-restart'])
      expect(expectedRunMs(getScenario(name)), name).toBeGreaterThan(plain);
    // A stretched scenario is expected to take longer by the stretch.
    const s = getScenario('stale-lease');
    expect(expectedRunMs(scaleScenarioTime(s, 2))).toBeGreaterThan(expectedRunMs(s));
  });

  it('orders every position once, longest first, ties in catalog order', () => {
    const order = longestFirst(catalog);
    expect([...order].sort((a, b) => a - b)).toEqual(catalog.map((_, i) => i));
    const ms = order.map((i) => expectedRunMs(catalog[i]!));
    for (let k = 1; k < order.length; k++) {
      expect(ms[k - 1]!).toBeGreaterThanOrEqual(ms[k]!);
      if (ms[k - 1] === ms[k]) expect(order[k - 1]!).toBeLessThan(order[k]!);
    }
  });

  it('starts the longest first on two lanes and still returns the results in the order given', async () => {
    const chosen = ['partial-batch', 'sync-completion', 'stale-lease', 'never-finishes'].map((n) => getScenario(n));
    const started: string[] = [];
    const runs = await runCatalog({ kind: 'in-process', factory: createReferenceClient }, chosen, {
      parallel: 2,
      seed: 1,
      onStart: (s) => started.push(s.name),
    });
    expect(started.slice(0, 2)).toEqual(['stale-lease', 'never-finishes']);
    expect(runs.map((r) => r.scenario)).toEqual(chosen.map((s) => s.name));
  });
});
