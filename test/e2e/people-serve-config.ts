// The one-table relay config the `ambit relay serve` process tests start: `people.csv` (id, born) in `dir`, API-key
// auth from READER_HASH, a jsonl audit file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PeopleServeConfig {
  /** The file name in `dir`. */
  readonly name?: string;
  /** The entity's mapping, as YAML flow text after `name: person, table: people_table`. */
  readonly entity?: string;
  /** The dataset's `aggregates:` block, indented for the dataset. */
  readonly aggregates?: string;
}

/** Writes the config into `dir` and returns its path. */
export function writePeopleServeConfig(dir: string, options: PeopleServeConfig = {}): string {
  const path = join(dir, options.name ?? 'relay.yaml');
  writeFileSync(
    path,
    `server:
  bind: 127.0.0.1:0
catalog: { title: Test, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER_HASH }, scopes: ["people:rows"] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: people
    title: People
    tables:
      - id: people_table
        source: { type: file, path: people.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: born, type: date }
    entities:
      - { name: person, table: people_table${options.entity === undefined ? '' : `, ${options.entity}`} }
${options.aggregates ?? ''}`,
  );
  return path;
}
