// Regenerates docs/openapi.json from the contract's zod schemas (`npm run openapi`; needs a build).
// test/contract/openapi.test.ts fails while the committed file differs from what this writes.
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../dist/contract/openapi/document.js';

const out = new URL('../docs/openapi.json', import.meta.url);
writeFileSync(out, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${out.pathname}`);
