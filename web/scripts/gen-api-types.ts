/**
 * Regenerates src/api/schema.d.ts and src/api/constants.ts from the server (scripts/api-files.ts).
 * Run: npm run gen:api -w web. With --check (npm run lint), fails if either file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { constantsFile, schemaFile } from './api-files';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'api');
const check = process.argv.includes('--check');
const schema = await schemaFile();
const files = { 'schema.d.ts': schema.text, 'constants.ts': constantsFile() };
const stale: string[] = [];
for (const [name, text] of Object.entries(files)) {
  const file = path.join(dir, name);
  if (check) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // missing: stale
    }
    if (current !== text) stale.push(`web/src/api/${name}`);
  } else writeFileSync(file, text);
}
if (stale.length > 0) {
  console.error(`${stale.join(' and ')} no longer match the server: run npm run gen:api -w web and commit the result`);
  process.exit(1);
}
console.log(check ? 'web/src/api/schema.d.ts and constants.ts match the server' : `wrote web/src/api/schema.d.ts (${schema.paths} paths) and constants.ts`);
