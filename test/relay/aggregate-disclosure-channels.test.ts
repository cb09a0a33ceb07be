// What an aggregate answer must not tell beside its cells: a cell left out answers as an empty one in every format
// (body, headers, status), and a tag another caller was given is revalidated only once this caller's own scopes and
// purpose pass (docs/relay-api.md, "What the minimum cell size protects").
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { createRelayApp, type RelayApp } from '../../src/relay/app.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { injectThroughLane } from '../helpers/inject-through-lane.ts';

const KEYS = {
  /** May run `open` (it holds the rows scope) and `guarded`. */
  reader: 'channels-reader-key-00000000000000001',
  /** The aggregate scope alone: runs `guarded` (aggregate-only), not `open`. */
  analyst: 'channels-analyst-key-0000000000000002',
  /** Metadata only: may discover both, run neither. */
  viewer: 'channels-viewer-key-00000000000000003',
} as const;
type Caller = keyof typeof KEYS;

function aggregate(id: string, aggregateOnly: boolean): string {
  return `      - id: ${id}
        source_entity: people
        dimensions: [{ id: status, field: status }]
        indicators:
          - { id: rows, function: count }
          - { id: total, function: sum, column: income }
        allowed_filters: [{ field: status, ops: [eq, in] }]
        access: { aggregate_only_execution: ${aggregateOnly} }
        disclosure_control: { min_cell_size: 5, suppression: omit }
`;
}

const CONFIG = `server: { bind: 127.0.0.1:0 }
catalog: { title: T, base_url: "http://relay.test", publisher: Test }
auth:
  mode: api_key
  api_keys:
    - { id: reader, fingerprint: { provider: env, name: READER }, scopes: ["ppl:aggregate", "ppl:rows"] }
    - { id: analyst, fingerprint: { provider: env, name: ANALYST }, scopes: ["ppl:aggregate"] }
    - { id: viewer, fingerprint: { provider: env, name: VIEWER }, scopes: ["ppl:metadata"] }
audit: { sink: jsonl, path: audit.jsonl, hash_secret_env: AUDIT_SECRET }
datasets:
  - id: ppl
    title: People
    sensitivity: personal
    tables:
      - id: people_t
        source: { type: file, path: people.csv }
        primary_key: id
        schema:
          fields:
            - { name: id, type: integer, nullable: false }
            - { name: status, type: string }
            - { name: income, type: number, nullable: false }
    entities:
      - { name: people, table: people_t, api: { require_purpose_header: true } }
    aggregates:
${aggregate('open', false)}${aggregate('guarded', true)}`;

// Five people of status `ok`, one of status `secret` (a cell of one, left out).
const PEOPLE = 'id,status,income\n1,ok,10\n2,ok,20\n3,ok,30\n4,ok,40\n5,ok,50\n6,secret,99999\n';

describe('aggregate side channels', () => {
  let dir: string;
  let relay: RelayApp;
  const get = (url: string, as: Caller, headers: Record<string, string> = {}) =>
    injectThroughLane(relay.app, {
      method: 'GET',
      url,
      headers: { authorization: `Bearer ${KEYS[as]}`, 'data-purpose': 'https://example.test/p', ...headers },
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ambit-aggregate-channels-'));
    writeFileSync(join(dir, 'people.csv'), PEOPLE);
    const env = {
      AUDIT_SECRET: 'aggregate-channels-audit-secret-0123456789',
      READER: fingerprintOf(KEYS.reader),
      ANALYST: fingerprintOf(KEYS.analyst),
      VIEWER: fingerprintOf(KEYS.viewer),
    };
    relay = createRelayApp(loadRelayConfigText(CONFIG, env, dir), {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    await relay.loaded;
    await relay.app.ready();
  });
  after(async () => {
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers a cell it left out as it answers an empty cell, in JSON, CSV and SDMX-JSON', async () => {
    // `secret` holds one row, `zzzzzz` none; both values are six characters, so the links they echo are as long.
    const blank = (text: string) => text.replaceAll('secret', 'VALUE!').replaceAll('zzzzzz', 'VALUE!');
    const varying = new Set(['etag', 'x-request-id', 'date']);
    for (const f of ['json', 'csv', 'sdmx-json']) {
      for (const groupBy of ['', 'status']) {
        const ask = (status: string) =>
          get(`/v1/datasets/ppl/aggregates/guarded?group_by=${groupBy}&status=${status}&f=${f}`, 'analyst');
        const [left, empty] = [await ask('secret'), await ask('zzzzzz')];
        const at = `f=${f}, group_by=${groupBy}`;
        assert.equal(left.statusCode, 200, left.body);
        assert.equal(empty.statusCode, 200, empty.body);
        assert.ok(!left.body.includes('99999'), at);
        // SDMX names its message after the query (meta.id); everything else must be the same.
        const body = (response: typeof left) =>
          f === 'sdmx-json'
            ? JSON.stringify({ ...response.json(), meta: { ...response.json().meta, id: null } })
            : response.body;
        assert.equal(blank(body(left)), blank(body(empty)), at);
        const headers = (response: typeof left) =>
          Object.entries(response.headers)
            .filter(([name]) => !varying.has(name))
            .map(([name, value]) => `${name}: ${blank(String(value))}`)
            .sort();
        assert.deepEqual(headers(left), headers(empty), at);
      }
    }
  });

  it('revalidates a tag only for a caller whose own scopes and purpose pass', async () => {
    const url = '/v1/datasets/ppl/aggregates/open?group_by=status';
    const first = await get(url, 'reader');
    assert.equal(first.statusCode, 200, first.body);
    const etag = String(first.headers.etag);
    assert.equal((await get(url, 'reader', { 'if-none-match': etag })).statusCode, 304);
    for (const tag of [etag, '*']) {
      // Without the rows scope `open` needs, and without any execution scope: the refusal, never 304.
      for (const caller of ['analyst', 'viewer'] as const) {
        const response = await get(url, caller, { 'if-none-match': tag });
        assert.equal(response.statusCode, 403, `${caller}, ${tag}: ${response.body}`);
        assert.equal(response.json().code, 'auth.scope_denied');
        assert.equal(response.headers.etag, undefined);
      }
      // The reader without the purpose its entity requires.
      const unpurposed = await injectThroughLane(relay.app, {
        method: 'GET',
        url,
        headers: { authorization: `Bearer ${KEYS.reader}`, 'if-none-match': tag },
      });
      assert.equal(unpurposed.statusCode, 400, unpurposed.body);
      assert.equal(unpurposed.json().code, 'auth.purpose_required');
    }
  });
});
