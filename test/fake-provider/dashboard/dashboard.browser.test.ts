import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, serve, type Provider, type RunningServer } from '../../../src/fake-provider/index.js';
import { getScenario, listScenarios } from '../../../src/scenarios/index.js';
import { launchBrowser } from '../../helpers/browser.js';

/** The dashboard in headless Chromium against a provider served over loopback. Every wait is on DOM state. */
describe('/_dashboard in a real browser', () => {
  let provider: Provider;
  let server: RunningServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    provider = createProvider({
      scenarioLookup: (n) => {
        const s = getScenario(n);
        return { behavior: s.behavior, faults: s.faults };
      },
      dashboard: { scenarios: { names: listScenarios().map((s) => s.name) } },
    });
    server = await serve(provider, { port: 0 });
    browser = await launchBrowser();
    page = await browser.newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    provider?.close();
  });

  const create = (key: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/jobs`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer dev-token',
        'content-type': 'application/json',
        'idempotency-key': key,
        'x-worker-id': 'worker-7',
        ...headers,
      },
      body: JSON.stringify({ kind: 'report', input: { note: '<img src=x onerror="window.__xss=3">' } }),
    });

  it('shows a create arriving live, escaped', async () => {
    await page.goto(`${server.url}/_dashboard`);
    await page.locator('#live-state', { hasText: /^live/ }).waitFor();
    const res = await create('live-create-1', { 'x-trace-id': '<img src=x onerror="window.__xss=2">' });
    expect(res.status).toBe(202);
    // Auto-waiting locators: the row exists only once the live stream brought it.
    const row = page.locator('details.row', { hasText: 'live-create-1' }).filter({ hasText: 'job created' });
    await row.locator('summary').click();
    expect(await row.textContent()).toContain('worker-7');
    // The trace id and the body came back as text, never as markup.
    await row.locator('.more', { hasText: 'onerror="window.__xss=2"' }).waitFor();
    expect(await row.locator('.more').textContent()).toContain(
      '{"kind":"report","input":{"note":"<img src=x onerror=\\"window.__xss=3\\">"}}',
    );
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  });

  it('switches a catalog scenario from the page, then marks the lost answer as lost', async () => {
    await page.goto(`${server.url}/_dashboard/faults`);
    await page.selectOption('#form-scenario select[name=name]', 'lost-create-response');
    await page.fill('#form-scenario input[name=control_token]', provider.tokens.control_token);
    await page.click('#form-scenario button[type=submit]');
    await page.locator('#msg-scenario', { hasText: "switched to scenario 'lost-create-response'" }).waitFor();
    expect(await page.locator('#rules').textContent()).toContain('lose_response');
    expect(provider.core.faults.describe().rules).toHaveLength(1);

    await page.goto(`${server.url}/_dashboard`);
    await page.locator('#live-state', { hasText: /^live/ }).waitFor();
    await expect(create('lost-create-1')).rejects.toThrow(); // the connection is reset: the answer is lost
    const row = page.locator('details.row.tone-lost', { hasText: 'lost-create-1' });
    await row.locator('.why', { hasText: 'answer lost' }).waitFor();
    expect(await row.locator('.why').textContent()).toContain('lose-first-create');
    // The lost create is counted on the Faults page.
    await page.goto(`${server.url}/_dashboard/faults`);
    expect(await page.locator('#rules .hits').first().textContent()).toBe('1');
  });
});
