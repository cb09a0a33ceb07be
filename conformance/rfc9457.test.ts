// RFC 9457: every relay error body validates against the official problem schema and follows its rules.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Response } from 'light-my-request';
import { PURPOSE, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { readStandardJson } from './standards-dir.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const households = '/v1/datasets/social_protection/entities/households/records';

describe('RFC 9457 problem details (relay)', () => {
  let relay: TestRelay;
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validate = ajv.compile(readStandardJson('rfc9457/problem-details.schema.json') as object);
  const responses: Response[] = [];

  before(async () => {
    relay = await startDemoRelay();
    const requests: Promise<Response>[] = [
      relay.get(households),
      relay.get(households, { headers: { authorization: 'Basic abc' } }),
      relay.get(households, { headers: { authorization: 'Bearer not-a-key' } }),
      relay.get(households, { as: 'catalog_viewer' }),
      relay.get('/v1/datasets/nope/entities/x/records', { as: 'caseworker' }),
      relay.get('/v1/datasets/social_protection/entities/nope/records', { as: 'caseworker' }),
      relay.get(`${households}/hh-0000`, { as: 'caseworker' }),
      relay.get(`${households}?limit=0`, { as: 'caseworker' }),
      relay.get(`${households}?district.like=x`, { as: 'caseworker' }),
      relay.get(`${households}?cursor=garbage`, { as: 'caseworker' }),
      relay.get(`${households}?district.in=${Array.from({ length: 101 }, (_, i) => `d${i}`).join(',')}`, {
        as: 'caseworker',
      }),
      relay.get('/v1/datasets/civil_registry/entities/persons/records', { as: 'caseworker' }),
      relay.get('/v1/datasets/civil_registry/entities/persons/records', {
        as: 'caseworker',
        headers: { 'data-purpose': PURPOSE },
      }),
      relay.get(`/x${'a'.repeat(9000)}`),
      relay.get('/no/such/route'),
    ];
    responses.push(...(await Promise.all(requests)));
  });
  after(() => relay.close());

  it('the official examples pass the validator used for our errors', () => {
    const examples = readStandardJson('rfc9457/examples.json') as { valid: { body: unknown }[] };
    assert.ok(examples.valid.length >= 2);
    for (const example of examples.valid)
      assert.equal(validate(example.body), true, JSON.stringify(validate.errors));
  });

  it('every error response is a valid problem with the exact media type and matching status', () => {
    assert.equal(responses.length, 15);
    for (const response of responses) {
      assert.ok(response.statusCode >= 400, `expected an error, got ${response.statusCode}`);
      assert.equal(response.headers['content-type'], 'application/problem+json');
      const body = response.json();
      assert.equal(validate(body), true, JSON.stringify(validate.errors));
      assert.equal(body.status, response.statusCode);
      assert.match(body.type, /^https:\/\/ambit\.dev\/problems\/[a-z_]+(\/[a-z_]+)+$/);
      assert.equal(typeof body.code, 'string');
      assert.equal(body.request_id, response.headers['x-request-id']);
      assert.doesNotMatch(JSON.stringify(body), /\bat .+\.(ts|js):\d+|node_modules|Error:/);
    }
  });

  it('a problem type keeps one title across occurrences', () => {
    const titles = new Map<string, Set<string>>();
    for (const response of responses) {
      const body = response.json();
      const seen = titles.get(body.type) ?? new Set<string>();
      seen.add(body.title);
      titles.set(body.type, seen);
    }
    for (const [type, seen] of titles)
      assert.equal(seen.size, 1, `${type} has titles ${[...seen].join(' | ')}`);
    assert.ok(titles.size >= 10, 'the sample covers at least ten problem types');
  });
});
