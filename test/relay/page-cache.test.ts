// Repeated collection reads are answered from a per-generation cache; callers must not be able to tell, except by
// speed: same body, same ETag, same audit record, and nothing shared between credentials or purposes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { cachedPage, MAX_CACHED_BYTES, rememberPage } from '../../src/relay/routes/page-cache.ts';
import type { Generation } from '../../src/relay/store/generation.ts';
import { PURPOSE, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';

describe('repeated collection reads', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  const strip = (record: Record<string, unknown> | undefined) => {
    assert.ok(record);
    const { ts: _ts, request_id: _id, duration_ms: _duration, ...rest } = record;
    return rest;
  };

  it('answer a second time with the same body, ETag, next link and audit record', async () => {
    const first = await relay.get(`${HOUSEHOLDS}?limit=2`, { as: 'caseworker' });
    const firstRecord = relay.auditRecords().at(-1);
    const second = await relay.get(`${HOUSEHOLDS}?limit=2`, { as: 'caseworker' });
    const secondRecord = relay.auditRecords().at(-1);
    assert.equal(first.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers.etag, first.headers.etag);
    assert.match(String(second.headers.link), /rel="next"/);
    assert.equal(second.headers.link, first.headers.link);
    assert.equal(secondRecord?.row_count, 2);
    assert.deepEqual(strip(secondRecord), strip(firstRecord));
  });

  it('revalidate a stored answer with 304 and the audit record of an uncached 304', async () => {
    const url = `${HOUSEHOLDS}?limit=3`;
    const first = await relay.get(url, { as: 'caseworker' });
    const etag = String(first.headers.etag);
    const notModified = await relay.get(url, { as: 'caseworker', headers: { 'if-none-match': etag } });
    assert.equal(notModified.statusCode, 304);
    assert.equal(notModified.headers.etag, etag);
    assert.equal(relay.auditRecords().at(-1)?.row_count, null);
  });

  it('never hand one caller the cursor minted for another credential or purpose', async () => {
    const url = `${HOUSEHOLDS}?limit=2`;
    const caseworker = await relay.get(url, { as: 'caseworker' });
    const otherCaller = await relay.get(url, { as: 'verifier_service' });
    const withPurpose = await relay.get(url, { as: 'caseworker', headers: { 'data-purpose': PURPOSE } });
    for (const response of [otherCaller, withPurpose]) {
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json().data, caseworker.json().data);
      assert.notEqual(response.headers.link, caseworker.headers.link, 'a cursor of its own');
    }
    // Each cursor still works only for the caller it was minted for.
    const next = (response: typeof caseworker) =>
      String(response.headers.link).slice(1).split('>;')[0] as string;
    assert.equal((await relay.get(next(otherCaller), { as: 'verifier_service' })).statusCode, 200);
    assert.equal((await relay.get(next(otherCaller), { as: 'caseworker' })).statusCode, 400);
  });

  it('give each spelling of the path the next link it names itself', async () => {
    const escaped = '/v1/datasets/social%5Fprotection/entities/households/records?limit=4';
    const first = await relay.get(escaped, { as: 'caseworker' });
    assert.match(String(first.headers.link), /^<\/v1\/datasets\/social%5Fprotection\//);
    const plain = await relay.get(`${HOUSEHOLDS}?limit=4`, { as: 'caseworker' });
    assert.equal(plain.statusCode, 200);
    assert.equal(plain.body, first.body);
    assert.equal(plain.headers.etag, first.headers.etag);
    assert.match(String(plain.headers.link), /^<\/v1\/datasets\/social_protection\//);
  });
});

describe('the page cache', () => {
  it('holds a bounded number of bytes per generation, however large the pages', () => {
    const generation = {} as Generation;
    // One buffer shared by every page: the test itself stays small while the cache counts each page's size.
    const body = Buffer.alloc(256 * 1024);
    const keys: string[] = [];
    for (let i = 0; i < 4096; i++) {
      const key = `social_protection/payments\u0000limit=${i}\u0000\u0000tag`;
      keys.push(key);
      rememberPage(generation, key, { etag: `"e${i}"`, body, rowCount: 1, link: undefined });
    }
    const stored = keys.map((key) => cachedPage(generation, key)).filter((page) => page !== undefined);
    const bytes = stored.reduce((sum, page) => sum + page.body.length, 0);
    assert.ok(bytes <= MAX_CACHED_BYTES, `${bytes} bytes stored`);
    assert.ok(stored.length > 0, 'pages are still stored');
    assert.equal(cachedPage(generation, keys.at(-1) as string)?.etag, '"e4095"', 'the newest page is kept');
  });

  it('does not store a page larger than its share of the budget', () => {
    const generation = {} as Generation;
    const key = 'social_protection/payments\u0000limit=500\u0000\u0000tag';
    rememberPage(generation, key, {
      etag: '"big"',
      body: Buffer.alloc(MAX_CACHED_BYTES),
      rowCount: 500,
      link: undefined,
    });
    assert.equal(cachedPage(generation, key)?.etag, undefined);
  });
});
