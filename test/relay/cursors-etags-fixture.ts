// Shared by the cursor and ETag tests: four demo relays, the demo files, and page, cursor and ETag readers.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { Response } from 'light-my-request';
import { type Persona, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { type DemoData, readDemoData } from './read-demo-data.ts';

export const SP = '/v1/datasets/social_protection/entities';
export const HOUSEHOLDS = `${SP}/households/records`;
export const PAYMENTS = `${SP}/payments/records`;
export const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
export const ETAG = /^"sha256:[0-9a-f]{64}"$/;

export interface PageOptions {
  /** The relay asked (by default the relay under test). */
  on?: TestRelay;
  /** The caller (by default the caseworker). */
  as?: Persona;
  headers?: Record<string, string>;
}

/** Starts the four relays and reads the demo files before the suite's tests, closes the relays after. */
export function useCursorsAndEtags() {
  /** The relay under test. */
  let relay: TestRelay;
  /** Same config and cursor secret: a replica. */
  let replica: TestRelay;
  /** Same config, another cursor secret. */
  let otherSecret: TestRelay;
  /** Same cursor secret, but the households table is declared differently, so its generation differs. */
  let reloaded: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, replica, otherSecret, reloaded, demo] = await Promise.all([
      startDemoRelay(),
      startDemoRelay(),
      startDemoRelay({ env: { AMBIT_DEMO_CURSOR_SECRET: 'another-cursor-secret-0123456789abcdef' } }),
      startDemoRelay({
        edit: (text) =>
          text.replace(
            '{ name: case_notes, type: string, sensitive: true }',
            '{ name: case_notes, type: string }',
          ),
      }),
      readDemoData(),
    ]);
  });
  after(() => Promise.all([relay, replica, otherSecret, reloaded].map((r) => r.close())));

  /** Reads one page (asserting 200): the response, the first field of each row, and the next-page cursor. */
  async function page(
    path: string,
    options: PageOptions = {},
  ): Promise<{ response: Response; ids: string[]; cursor: string | undefined }> {
    const response = await (options.on ?? relay).get(path, {
      as: options.as ?? 'caseworker',
      ...(options.headers ? { headers: options.headers } : {}),
    });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    const body = response.json();
    const ids = body.data.map((row: Record<string, string>) => Object.values(row)[0]);
    return { response, ids, cursor: body.pagination.next_cursor };
  }

  /** The next-page cursor of a page that has one. */
  async function cursorOf(path: string, options: PageOptions = {}): Promise<string> {
    const { cursor } = await page(path, options);
    assert.ok(cursor, `${path} has a next page`);
    return cursor;
  }

  /** The ETag of a 200 answer, asserted to be a strong sha256 tag. */
  async function etagOf(
    path: string,
    as: Persona = 'caseworker',
    headers: Record<string, string> = {},
    on = relay,
  ) {
    const response = await on.get(path, { as, headers });
    assert.equal(response.statusCode, 200, response.body);
    const etag = response.headers.etag as string;
    assert.match(etag, ETAG, path);
    return etag;
  }

  return {
    get relay() {
      return relay;
    },
    get replica() {
      return replica;
    },
    get otherSecret() {
      return otherSecret;
    },
    get reloaded() {
      return reloaded;
    },
    /** The demo files. */
    get demo() {
      return demo;
    },
    page,
    cursorOf,
    etagOf,
    /** The demo household ids, in the relay's order. */
    householdIds: () => demo.households.map((row) => row.household_id as string),
  };
}
