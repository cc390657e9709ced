import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { toJson } from '../../../src/conformance/report/write-reports.js';
import { toHtml } from '../../../src/conformance/report/html/report-html.js';
import { brokenClientCertification } from './broken-client-report.js';
it('gen', async () => {
  const c = await brokenClientCertification();
  writeFileSync('/tmp/report.html', toHtml(c, toJson(c)));
});
