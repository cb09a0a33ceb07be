// Ajv over the official OGC API Records 1.0 schemas, with the Features 1.0 schemas they `$ref` registered under
// their schemas.opengis.net URLs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { parse } from 'yaml';
import { standardsDir } from '../standards-dir.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
export const FEATURES_BASE = 'https://schemas.opengis.net/ogcapi/features/part1/1.0/openapi/schemas/';
export const RECORDS_BASE = 'https://schemas.opengis.net/ogcapi/records/part1/1.0/openapi/schemas/';

/** Every schema file of a folder registered under `base` + its file name, so relative `$ref`s resolve. */
function addYamlSchemas(ajv: Ajv, dir: string, base: string): void {
  for (const name of readdirSync(dir).filter((file) => file.endsWith('.yaml'))) {
    // schema.yaml declares the draft-04 meta-schema and is not a record building block.
    if (name === 'schema.yaml') continue;
    const schema = parse(readFileSync(join(dir, name), 'utf8')) as Record<string, unknown>;
    ajv.addSchema({ ...schema, $id: base + name });
  }
}

export function recordsAjv(): Ajv {
  // Draft-07 with strict off: the files carry OpenAPI keywords (`nullable`, `example`).
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  addYamlSchemas(ajv, join(standardsDir(), 'ogcapi-features/1.0.1/openapi/schemas'), FEATURES_BASE);
  addYamlSchemas(ajv, join(standardsDir(), 'ogcapi-records/1.0.0/openapi/schemas'), RECORDS_BASE);
  return ajv;
}
