// Shared by the demo aggregate tests: a demo relay on a fixed clock, the demo files read from disk, and helpers
// that ask for an aggregate as the analyst and group the files' rows as the relay does.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fixedClock } from '../../src/platform/clock.ts';
import { DEMO_DIR, startDemoRelay, TEST_KEYS, type TestRelay } from '../helpers/relay-harness.ts';
import { type DemoData, type Row, readDemoData } from './read-demo-data.ts';

export const SP = '/v1/datasets/social_protection/aggregates';
export const PAYMENTS = `${SP}/payments_by_district`;
export const HOUSEHOLDS = `${SP}/households_by_district`;
export const PERSONS = '/v1/datasets/civil_registry/aggregates/persons_by_district';
export const BEDS = '/v1/datasets/health_facilities/aggregates/beds_by_district';
export const SDMX = 'application/vnd.sdmx.data+json;version=2.1';
export const NOW = '2026-03-01T12:00:00.000Z';
/** What the social protection aggregates say they are of: the workbook's modification time, not the clock. */
export const WORKBOOK_TIME = new Date(
  Math.floor(statSync(join(DEMO_DIR, 'data/social_protection.xlsx')).mtimeMs),
).toISOString();

/** Groups rows by the given key function, in the relay's order (ascending text keys). */
export function groupsOf(rows: readonly Row[], key: (row: Row) => string): Map<string, Row[]> {
  const groups = new Map<string, Row[]>();
  for (const row of [...rows].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
    groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  }
  return groups;
}

export const cents = (value: number) => Math.round(value * 100);

/** Starts the demo relay and reads the demo files before the suite's tests, closes the relay after. */
export function useDemoAggregates() {
  let relay: TestRelay;
  let data: DemoData;
  let districtOf: Map<unknown, unknown>;
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    relay.inject({
      method: 'POST',
      url: path,
      headers: {
        authorization: `Bearer ${TEST_KEYS.analyst}`,
        'content-type': 'application/json',
        ...headers,
      },
      payload: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
    });
  const get = (path: string, headers: Record<string, string> = {}) =>
    relay.get(path, { as: 'analyst', headers });

  before(async () => {
    relay = await startDemoRelay({ clock: fixedClock(NOW) });
    data = await readDemoData();
    districtOf = new Map(data.households.map((h) => [h.household_id, h.district]));
  });
  after(() => relay.close());

  return {
    get relay() {
      return relay;
    },
    /** The demo files. */
    get data() {
      return data;
    },
    /** Each household's district, by household id. */
    get districtOf() {
      return districtOf;
    },
    /** POSTs `body` (JSON unless a string) to `path` as the analyst. */
    post,
    /** GETs `path` as the analyst. */
    get,
  };
}
