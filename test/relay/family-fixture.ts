// A relay over two CSV tables in a temporary folder: `parents` (string keys p0..p2) and `kids` (integer keys, many
// per parent, written shuffled), joined by has_many `kids` and belongs_to `parent`. Kids are read with their own
// scope, which one key lacks; tests rewrite the CSV files and reload.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Response } from 'light-my-request';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';

export const FAMILY_KEYS = {
  /** Rows of both entities. */
  reader: 'family-test-reader-key-0000000000001',
  /** Rows of parents only (and metadata): kids are out of its reach. */
  parents_only: 'family-test-parents-only-key-000001',
  /** Rows of kids only. */
  kids_only: 'family-test-kids-only-key-000000001',
  operator: 'family-test-operator-key-0000000001',
} as const;

export type FamilyPersona = keyof typeof FAMILY_KEYS;

const SCOPES: Record<FamilyPersona, string[]> = {
  reader: ['fam:metadata', 'fam:rows', 'fam:evidence_verification'],
  parents_only: ['fam:metadata', 'fam:rows'],
  kids_only: ['fam:evidence_verification'],
  operator: ['relay:admin'],
};

export const PARENTS = '/v1/datasets/fam/entities/parents/records';
export const KIDS = '/v1/datasets/fam/entities/kids/records';

export interface FamilyOptions {
  /** Number of kids; kid `i` belongs to parent `p{i % 3}`. */
  readonly kids?: number;
  /** Edits of the config text before it is loaded. */
  readonly edit?: (text: string) => string;
  /** Source files written instead of the generated ones (for tables an `edit` redeclares). */
  readonly files?: Partial<Record<'parents.csv' | 'kids.csv', string>>;
}

function configText(): string {
  const keys = Object.entries(SCOPES)
    .map(
      ([persona, scopes]) =>
        `    - { id: ${persona}, fingerprint: { provider: env, name: ${persona.toUpperCase()}_HASH }, scopes: ${JSON.stringify(scopes)} }`,
    )
    .join('\n');
  return `server:
  bind: 127.0.0.1:0
  admin_bind: 127.0.0.1:0
catalog: { title: Family test, base_url: "http://127.0.0.1", publisher: Test }
auth:
  mode: api_key
  api_keys:
${keys}
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: fam
    title: Families
    defaults:
      refresh: { mode: interval, interval: 1h }
    tables:
      - id: parents_table
        source: { type: file, path: parents.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: string, nullable: false }
            - { name: name, type: string }
      - id: kids_table
        source: { type: file, path: kids.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: parent_id, type: string }
            - { name: label, type: string }
    entities:
      - name: parents
        table: parents_table
        relationships:
          - { name: kids, kind: has_many, target: kids, foreign_key: parent_id }
        api:
          default_limit: 10
          max_limit: 50
          allowed_filters: [{ field: id, ops: [eq, in] }]
          allowed_expansions: [kids]
      - name: kids
        table: kids_table
        access: { read_scope: "fam:evidence_verification" }
        relationships:
          - { name: parent, kind: belongs_to, target: parents, foreign_key: parent_id }
        api:
          default_limit: 20
          max_limit: 100
          allowed_filters: [{ field: parent_id, ops: [eq] }]
          allowed_expansions: [parent]
`;
}

export function parentsCsv(suffix = ''): string {
  return `id,name\np0,Ann${suffix}\np1,Bob${suffix}\np2,Cat${suffix}\n`;
}

/** Kids 1..count, kid `i` of parent `p{i % 3}`, written in a shuffled (but fixed) order. */
export function kidsCsv(count: number, suffix = ''): string {
  const ids = Array.from({ length: count }, (_, i) => i + 1);
  for (let i = ids.length - 1; i > 0; i--) {
    const j = (i * 7919) % (i + 1);
    [ids[i], ids[j]] = [ids[j] as number, ids[i] as number];
  }
  return `id,parent_id,label\n${ids.map((id) => `${id},p${id % 3},kid ${id}${suffix}`).join('\n')}\n`;
}

/** The kids of a parent as the relay renders them, in primary-key order. */
export function kidsOf(parent: string, count: number, suffix = ''): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (let id = 1; id <= count; id++) {
    if (`p${id % 3}` === parent) rows.push({ id, parent_id: parent, label: `kid ${id}${suffix}` });
  }
  return rows;
}

export interface FamilyRelay {
  readonly dir: string;
  readonly relay: RelayApp;
  get(path: string, as?: FamilyPersona, headers?: Record<string, string>): Promise<Response>;
  /** Reloads one table through the admin listener. */
  reload(table: 'parents_table' | 'kids_table'): Promise<Response>;
  write(file: 'parents.csv' | 'kids.csv', text: string): void;
  close(): Promise<void>;
}

export async function startFamilyRelay(options: FamilyOptions = {}): Promise<FamilyRelay> {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-family-'));
  const write = (file: string, text: string) => writeFileSync(join(dir, file), text);
  write('parents.csv', options.files?.['parents.csv'] ?? parentsCsv());
  write('kids.csv', options.files?.['kids.csv'] ?? kidsCsv(options.kids ?? 30));
  const env: Record<string, string> = { AUDIT_SECRET: 'family-test-audit-secret-0123456789abcdef' };
  for (const [persona, key] of Object.entries(FAMILY_KEYS))
    env[`${persona.toUpperCase()}_HASH`] = fingerprintOf(key);
  const text = (options.edit ?? ((t: string) => t))(configText());
  let relay: RelayApp | undefined;
  try {
    relay = createRelayApp(loadRelayConfigText(text, env, dir), {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    await relay.loaded;
    await Promise.all([relay.app.ready(), (relay.admin as FastifyInstance).ready()]);
  } catch (error) {
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const app = relay;
  const auth = (as: FamilyPersona) => ({ authorization: `Bearer ${FAMILY_KEYS[as]}` });
  return {
    dir,
    relay: app,
    get: (path, as = 'reader', headers = {}) =>
      injectThroughLane(app.app, { method: 'GET', url: path, headers: { ...auth(as), ...headers } }),
    reload: (table) =>
      (app.admin as FastifyInstance).inject({
        method: 'POST',
        url: `/admin/v1/datasets/fam/tables/${table}/reload`,
        headers: auth('operator'),
      }),
    write,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
