import { mkdirSync, mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'vitest';
import { writeReports } from '../../src/conformance/report/write-reports.js';
import { createProvider, serve } from '../../src/fake-provider/index.js';
import { VirtualClock } from '../../src/lib/clock.js';
import { getScenario, listScenarios } from '../../src/scenarios/index.js';
import { launchBrowser } from '../helpers/browser.js';
import { brokenClientCertification } from '../conformance/report/broken-client-report.js';

/**
 * `npm run screenshots`: the pictures in docs/images/, taken from a live provider with some traffic and from the
 * certificate of a deliberately broken client. Skipped by `npm test` (it writes into docs/).
 */
const OUT = join(process.cwd(), 'docs/images');

describe.runIf(process.env.JOBPROOF_SCREENSHOTS === '1')('screenshots for docs/images', () => {
  it('dashboard and HTML certificate', async () => {
    mkdirSync(OUT, { recursive: true });
    const hooks = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
    const hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hook`;
    // A virtual clock: the jobs' lives pass when the script says so, never by waiting.
    const clock = new VirtualClock('2026-12-01T13:00:00.000Z');
    const provider = createProvider({
      clock,
      behavior: { default: { duration_ms: 3000 } },
      faults: {
        seed: 7,
        rules: [
          { id: 'lose-2nd-create', on: 'create', nth: 2, fault: { type: 'lose_response', mode: 'reset' } },
          { id: 'throttle-reads', on: 'status', nth: [3, 4], fault: { type: 'rate_limit', retry_after: 1 } },
          { id: 'dup-webhook', on: 'webhook', nth: 1, fault: { type: 'duplicate', copies: 1 } },
        ],
      },
      scenarioLookup: (n) => ({ behavior: getScenario(n).behavior, faults: getScenario(n).faults }),
      dashboard: { scenarios: { names: listScenarios().map((s) => s.name) } },
    });
    const server = await serve(provider, { port: 0 });
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage({ viewport: { width: 1440, height: 860 }, colorScheme: 'light' });
      await page.goto(`${server.url}/_dashboard`);
      await page.locator('#live-state', { hasText: /^live/ }).waitFor();
      const call = async (method: string, path: string, worker: string, trace: string, key?: string, body?: unknown) => {
        await clock.advance(137);
        return fetch(`${server.url}${path}`, {
          method,
          headers: {
            authorization: 'Bearer dev-token',
            'content-type': 'application/json',
            'x-worker-id': worker,
            'x-trace-id': trace,
            ...(key ? { 'idempotency-key': key } : {}),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(
          async (r) => ({ status: r.status, json: await r.json().catch(() => null) }),
          () => ({ status: 0, json: null }),
        );
      };
      const ids: string[] = [];
      for (const [i, w] of ['worker-1', 'worker-2', 'worker-1'].entries()) {
        const body = { kind: 'report', input: { account: `acct_${i + 1}` }, webhook_url: hookUrl };
        let r = await call('POST', '/v1/jobs', w, `tr_op${i + 1}`, `op-${i + 1}`, body);
        if (r.status === 0) r = await call('POST', '/v1/jobs', w, `tr_op${i + 1}`, `op-${i + 1}`, body); // lost: retry, same key
        ids.push(r.json.job_id);
      }
      for (const [i, id] of ids.entries()) await call('GET', `/v1/jobs/${id}`, i === 1 ? 'worker-2' : 'worker-1', `tr_op${i + 1}`);
      await call('POST', '/v1/jobs', 'worker-2', 'tr_op9', 'op-1', { kind: 'report', input: { account: 'changed' } });
      await page.locator('details.row', { hasText: 'op-1' }).filter({ hasText: 'key conflict' }).first().waitFor();
      await page.locator('details.row.tone-lost summary').first().click();
      await page.screenshot({ path: join(OUT, 'dashboard-journal.png') });
      // The jobs finish 3 s of provider time later; their webhooks follow.
      for (let i = 0; i < 6; i++) {
        await clock.advance(1000);
        await provider.idle();
      }
      for (const [i, id] of ids.entries()) await call('GET', `/v1/jobs/${id}`, 'worker-1', `tr_op${i + 1}`);
      await call('GET', `/v1/jobs/${ids[0]}/results`, 'worker-1', 'tr_op1');
      await page.goto(`${server.url}/_dashboard/jobs`);
      await page.screenshot({ path: join(OUT, 'dashboard-jobs.png') });
      await page.goto(`${server.url}/_dashboard/faults`);
      await page.screenshot({ path: join(OUT, 'dashboard-faults.png') });

      const dir = mkdtempSync(join(tmpdir(), 'jobproof-shots-'));
      const file = join(dir, 'certificate.html');
      const { report: cert, evidence } = await brokenClientCertification();
      writeReports(cert, [{ kind: 'html', path: file }], evidence);
      const report = await browser.newPage({ viewport: { width: 1440, height: 1400 }, colorScheme: 'light', javaScriptEnabled: false });
      await report.goto(pathToFileURL(file).href);
      await report.screenshot({ path: join(OUT, 'certificate-html.png') });
      await report.locator('#run-lost-create-response').screenshot({ path: join(OUT, 'certificate-failing-run.png') });
    } finally {
      await browser.close();
      await server.close();
      provider.close();
      hooks.close();
    }
  });
});
