/**
 * Build step: writes the OpenAPI document to the path given (the gateway's `dist/openapi.json`),
 * so the document that is served is the one the build generated from the contract map.
 */
import fs from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from './document';

const target = process.argv[2];
if (!target) {
  process.stderr.write('usage: write-openapi <file>\n');
  process.exit(2);
}
fs.mkdirSync(path.dirname(target), { recursive: true });
fs.writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
