import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { writeReports } from '../../../src/conformance/report/write-reports.js';
import { launchBrowser } from '../../helpers/browser.js';
import { brokenClientCertification } from './broken-client-report.js';

describe('certify --report html=PATH in a real browser, JavaScript off', () => {
  it("shows the broken client's failing run: the lost answer in its diagram and the broken invariant", async () => {
    const { report, evidence } = await brokenClientCertification();
    const dir = mkdtempSync(join(tmpdir(), 'jobproof-html-'));
    const file = join(dir, 'certificate.html');
    writeReports(report, [{ kind: 'html', path: file }], evidence);
    const browser = await launchBrowser();
    try {
      // No script is needed to read it, and it fetches nothing.
      const page = await browser.newPage({ javaScriptEnabled: false });
      const fetched: string[] = [];
      page.on('request', (r) => fetched.push(r.url()));
      await page.goto(pathToFileURL(file).href);
      expect(await page.locator('#verdict').textContent()).toBe('NOT CERTIFIED');
      // Failures first in the matrix; the broken I2 cell links to its evidence.
      const firstRow = page.locator('#matrix tr').nth(1);
      expect(await firstRow.locator('td.name').textContent()).toBe('lost-create-response');
      const cell = firstRow.locator('td.c-broken a[href="#run-lost-create-response-I2"]');
      await cell.click();
      expect(new URL(page.url()).hash).toBe('#run-lost-create-response-I2');
      const section = page.locator('#run-lost-create-response-I2');
      expect(await section.locator('h4').textContent()).toBe('I2 key-discipline — broken');
      expect(await section.textContent()).toContain('first step not explained');
      // The diagram: the create's lost answer as a cross mid-way, with the journal entry as its tooltip.
      const run = page.locator('#run-lost-create-response');
      const lost = run.locator('svg.seq text.lbl.lost');
      expect(await lost.first().textContent()).toMatch(/LOST \(lose_response\)/);
      expect(await run.locator('svg.seq path.cross').count()).toBeGreaterThanOrEqual(1);
      const entry = run.locator('svg.seq g.entry', { has: page.locator('path.cross') }).first();
      const id = await entry.getAttribute('id');
      expect(id).toMatch(/^run-lost-create-response-seq-\d+$/);
      expect(await entry.locator('title').first().textContent()).toContain('"delivery": "lost"');
      // The argument cites that entry by its anchor.
      expect(await section.locator(`a[href="#${id}"]`).count()).toBeGreaterThanOrEqual(1);
      expect(await run.locator('pre', { hasText: '--scenarios lost-create-response --seed 11' }).count()).toBe(1);
      // Passing runs are collapsed.
      expect(await page.locator('details.run.passing#run-duplicate-webhook').getAttribute('open')).toBeNull();
      expect(fetched.every((u) => u.startsWith('file:'))).toBe(true);
      await page.close();
    } finally {
      await browser.close();
    }
  });
});
