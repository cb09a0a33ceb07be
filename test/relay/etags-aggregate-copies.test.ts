// Aggregate ETags of two relays serving copies of the same files whose modification times differ (two machines,
// each with its own copy; or one file touched, then reloaded by one process and read afresh by another). Each body
// states its own data time, but the data is the same: the tags must let each process answer the other's with 304.
import assert from 'node:assert/strict';
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { closeHarness, type Harness, peopleCsv, RELOAD_KEYS, startHarness } from './reload-fixture.ts';

const BY_DISTRICT = '/v1/datasets/people/aggregates/people_by_district';

/** A read by the reader with `If-None-Match`. */
const revalidate = (harness: Harness, path: string, etag: string) =>
  harness.relay.app.inject({
    method: 'GET',
    url: path,
    headers: { authorization: `Bearer ${RELOAD_KEYS.reader}`, 'if-none-match': etag },
  });

const touch = (harness: Harness, seconds: number) => {
  for (const name of ['people.csv', 'districts.csv'])
    utimesSync(join(harness.fixture.dir, name), seconds, seconds);
};

describe('aggregate ETags over copies of one file with other modification times', () => {
  let first: Harness;
  let second: Harness;
  before(async () => {
    first = await startHarness();
    second = await startHarness();
    // New data, the same in both copies, each file with a time of its own; each relay loads its copy.
    for (const [harness, seconds] of [
      [first, 1_700_000_000],
      [second, 1_710_000_000],
    ] as const) {
      harness.fixture.writePeople(peopleCsv(31));
      touch(harness, seconds);
      assert.equal((await harness.post('/admin/v1/reload')).statusCode, 200);
    }
  });
  after(async () => {
    await Promise.all([first, second].map((harness) => harness && closeHarness(harness)));
  });

  it('tag the same data alike in JSON, CSV and SDMX-JSON, and each answers the other tag 304', async () => {
    for (const query of ['', '?f=csv', '?f=sdmx-json', '?group_by=district&max_rows=2']) {
      const path = `${BY_DISTRICT}${query}`;
      const a = await first.get(path);
      const b = await second.get(path);
      assert.equal(a.statusCode, 200, a.body);
      assert.equal(b.statusCode, 200, b.body);
      const etag = String(a.headers.etag);
      assert.match(etag, /^W\/"sha256:[0-9a-f]{64}"$/, path);
      assert.equal(b.headers.etag, etag, path);
      assert.equal((await revalidate(second, path, etag)).statusCode, 304, path);
      assert.equal((await revalidate(first, path, String(b.headers.etag))).statusCode, 304, path);
    }
    // The bodies still state each copy's own time.
    assert.equal((await first.get(BY_DISTRICT)).json().freshness.as_of, '2023-11-14T22:13:20.000Z');
    assert.equal((await second.get(BY_DISTRICT)).json().freshness.as_of, '2024-03-09T16:00:00.000Z');
  });

  it('tag other data otherwise', async () => {
    second.fixture.writePeople('id,district,born\n1,a,2001-02-03\n');
    assert.equal((await second.post('/admin/v1/reload')).statusCode, 200);
    const a = await first.get(BY_DISTRICT);
    const b = await second.get(BY_DISTRICT);
    assert.notEqual(b.headers.etag, a.headers.etag);
    assert.equal((await revalidate(second, BY_DISTRICT, String(a.headers.etag))).statusCode, 200);
  });
});
