// Regenerates schemas/profile.schema.json and docs/profile-reference.md from the zod profile schema
// (`npm run profile-reference`; needs a build). test/contract/profile-reference.test.ts fails while either is stale.
import { writeFileSync } from 'node:fs';
import { profileReferenceMarkdown } from '../dist/contract/profile-reference.js';
import { profileJsonSchema } from '../dist/contract/profiles.js';

const schema = new URL('../schemas/profile.schema.json', import.meta.url);
writeFileSync(schema, `${JSON.stringify(profileJsonSchema(), null, 2)}\n`);
const reference = new URL('../docs/profile-reference.md', import.meta.url);
writeFileSync(reference, profileReferenceMarkdown());
console.log(`wrote ${schema.pathname} and ${reference.pathname}`);
