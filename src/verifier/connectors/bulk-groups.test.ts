import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bulkChunks } from './bulk-groups.ts';
import { binding, lookupOf } from './fake-source-reader.ts';
import { recordsPath } from './records-path.ts';

const BULK = binding('bulk');
/** The relay refuses a longer request target with 414 (and the batch falls back to single reads). */
const RELAY_REQUEST_TARGET_LIMIT = 8 * 1024;

/** The `.in` request target each chunk is sent as, the way the relay connector builds it. */
const requestTargets = (values: readonly string[]) =>
  bulkChunks(
    values.map((value) => lookupOf(value, BULK)),
    100,
  ).map((chunk) =>
    recordsPath(
      '/relay',
      BULK,
      'national_id.in',
      chunk.map((lookup) => lookup.value).join(','),
      chunk.length,
    ),
  );

describe('bulk chunks', () => {
  const cases: [string, string][] = [
    ['3-byte UTF-8 characters (9 characters each once encoded)', '€'.repeat(30)],
    ['4-byte UTF-8 characters (12 once encoded, 2 UTF-16 units)', '😀'.repeat(30)],
    ['characters form-encoding escapes', '/&=,'.repeat(10)],
  ];
  for (const [what, value] of cases) {
    it(`keeps every .in request under the relay's request-target limit: ${what}`, () => {
      const values = Array.from({ length: 100 }, (_, i) => `${value}${i}`);
      const targets = requestTargets(values);
      assert.ok(targets.length > 1, 'split into several requests');
      for (const target of targets) {
        assert.ok(target.length < RELAY_REQUEST_TARGET_LIMIT, `${target.length} characters`);
      }
    });
  }

  it('keeps every value, in order, and still sends 100 short ASCII values in one request', () => {
    const long = Array.from({ length: 100 }, (_, i) => `€${i}`.repeat(20));
    const chunks = bulkChunks(
      long.map((value) => lookupOf(value, BULK)),
      100,
    );
    assert.deepEqual(
      chunks.flat().map((lookup) => lookup.value),
      long,
    );
    assert.equal(requestTargets(Array.from({ length: 100 }, (_, i) => `FAKE-${i}`)).length, 1);
  });
});
