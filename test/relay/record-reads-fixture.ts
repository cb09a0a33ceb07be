// Shared by the entity record read tests: a demo relay and the demo files read straight from disk, with helpers
// that read a page as JSON and pick rows and values from the files.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type Persona, PURPOSE, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { type DemoData, type Row, readDemoData } from './read-demo-data.ts';

export const SP = '/v1/datasets/social_protection/entities';
export const CR = '/v1/datasets/civil_registry/entities';
export const HF = '/v1/datasets/health_facilities/entities';
export const WITH_PURPOSE = { 'data-purpose': PURPOSE };

export const ids = (rows: readonly Row[], key: string) => rows.map((row) => row[key]);
export const where = (rows: readonly Row[], test: (row: Row) => boolean) => rows.filter(test);

/** Starts a demo relay and reads the demo files before the suite's tests, closes the relay after. */
export function useRecordReads() {
  let relay: TestRelay;
  let demo: DemoData;
  before(async () => {
    [relay, demo] = await Promise.all([startDemoRelay(), readDemoData()]);
  });
  after(() => relay.close());

  /** GETs `path` as `as`, asserts a 200 JSON answer and returns it with its parsed body. */
  async function getJson(path: string, as: Persona = 'caseworker', headers: Record<string, string> = {}) {
    const response = await relay.get(path, { as, headers });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    return { response, body: response.json() };
  }

  /** A single-page read: the rows, and a check that nothing was left on a further page. */
  async function allRows(path: string, as: Persona = 'caseworker', headers: Record<string, string> = {}) {
    const { body } = await getJson(path, as, headers);
    assert.deepEqual(body.pagination, { has_more: false }, `${path} needs a larger limit`);
    return body.data as Row[];
  }

  return {
    get relay() {
      return relay;
    },
    get demo() {
      return demo;
    },
    getJson,
    allRows,
  };
}
