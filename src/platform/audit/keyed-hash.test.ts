import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { OTHER_SECRET, TEST_SECRET } from './audit-test-support.ts';
import { keyedHash, type RedactedQueryParam, redactedQueryJson } from './keyed-hash.ts';

describe('keyedHash', () => {
  it('is HMAC-SHA256 over domain:value with a hmac-sha256: prefix', () => {
    const expected = createHmac('sha256', TEST_SECRET).update('primary_key:census:person:P-17').digest('hex');
    assert.equal(keyedHash(TEST_SECRET, 'primary_key:census:person', 'P-17'), `hmac-sha256:${expected}`);
  });

  it('is deterministic per secret and differs per secret and per domain', () => {
    const a = keyedHash(TEST_SECRET, 'query:census:person:nid', '123');
    assert.equal(keyedHash(TEST_SECRET, 'query:census:person:nid', '123'), a);
    assert.notEqual(keyedHash(OTHER_SECRET, 'query:census:person:nid', '123'), a);
    assert.notEqual(keyedHash(TEST_SECRET, 'query:census:person:name', '123'), a);
    assert.notEqual(keyedHash(TEST_SECRET, 'query:census:person:nid', '124'), a);
    assert.match(a, /^hmac-sha256:[0-9a-f]{64}$/);
  });
});

describe('redactedQueryJson', () => {
  const redactQueryParams = (
    params: Parameters<typeof redactedQueryJson>[0],
    redactOptions: Parameters<typeof redactedQueryJson>[1],
  ) => JSON.parse(redactedQueryJson(params, redactOptions)) as Record<string, RedactedQueryParam>;

  const options = {
    sensitive: (field: string) => field === 'national_id' || field === 'name',
    secret: TEST_SECRET,
    domain: 'query:census:person',
  };

  it('splits names into field and op, hashing only sensitive fields', () => {
    const out = redactQueryParams(
      { district: 'North', 'district.in': 'North,South', national_id: 'NID-998877', 'name.like': 'Amina' },
      options,
    );
    assert.deepEqual(out, {
      district: { op: 'eq' },
      'district.in': { op: 'in' },
      national_id: {
        op: 'eq',
        value_hash: keyedHash(TEST_SECRET, 'query:census:person:national_id', 'NID-998877'),
      },
      'name.like': { op: 'like', value_hash: keyedHash(TEST_SECRET, 'query:census:person:name', 'Amina') },
    });
  });

  it('records reserved parameters and secret-looking names without values', () => {
    const out = redactQueryParams(
      {
        limit: '50',
        cursor: 'c2VjcmV0LWN1cnNvcg',
        fields: 'name,age',
        expand: 'household',
        access_token: 'tok-abc',
        API_KEY: 'k-123',
        client_secret: 's3',
        'Password.eq': 'hunter2',
        session_token: 'zzz',
      },
      options,
    );
    assert.deepEqual(out, {
      limit: { op: 'param' },
      cursor: { op: 'param' },
      fields: { op: 'param' },
      expand: { op: 'param' },
      access_token: { op: 'redacted' },
      API_KEY: { op: 'redacted' },
      client_secret: { op: 'redacted' },
      'Password.eq': { op: 'redacted' },
      session_token: { op: 'redacted' },
    });
  });

  it('never contains a raw value, whichever kind of parameter carried it', () => {
    const raw = {
      national_id: 'RAW-NID-1',
      'name.in': ['RAW-NAME-A', 'RAW-NAME-B'],
      district: 'RAW-DISTRICT',
      'age.gte': '4242',
      limit: '9191',
      cursor: 'RAW-CURSOR',
      token: 'RAW-TOKEN',
      'household.key': 'RAW-HH-KEY',
    };
    const json = redactedQueryJson(raw, options);
    for (const value of Object.values(raw).flat()) {
      assert.ok(!json.includes(value), `raw value ${value} leaked into ${json}`);
    }
  });

  it('hashes a repeated parameter differently from one comma list', () => {
    const repeated = redactQueryParams({ national_id: ['a', 'b'] }, options).national_id;
    const single = redactQueryParams({ national_id: 'a,b' }, options).national_id;
    const once = redactQueryParams({ national_id: ['a'] }, options).national_id;
    assert.notEqual(repeated?.value_hash, single?.value_hash);
    assert.equal(once?.value_hash, redactQueryParams({ national_id: 'a' }, options).national_id?.value_hash);
  });

  it('keeps a parameter named __proto__ as data', () => {
    const params = JSON.parse('{"__proto__":"x","other":"y"}') as Record<string, string>;
    assert.equal(redactedQueryJson(params, options), '{"__proto__":{"op":"eq"},"other":{"op":"eq"}}');
  });

  it('writes names that need escaping as valid JSON, and leaves out absent parameters', () => {
    const name = 'we"ird\\\u0001\u2028näme';
    const out = redactQueryParams({ [name]: 'x', gone: undefined }, options);
    assert.deepEqual(Object.keys(out), [name]);
    assert.deepEqual(out[name], { op: 'eq' });
  });

  it('writes a known field that holds a dot as itself, and hashes names it does not know', () => {
    const known = { field: (field: string) => field === 'household.district', ops: new Set(['eq', 'in']) };
    const out = redactQueryParams(
      { 'household.district': 'x', 'household.district.in': 'x,y', 'national_id=NID-1': 'x' },
      { ...options, known },
    );
    assert.deepEqual(out['household.district'], { op: 'eq' });
    assert.deepEqual(out['household.district.in'], { op: 'in' });
    const hashed = Object.keys(out).filter((name) => name.startsWith('hmac-sha256:'));
    assert.equal(hashed.length, 1);
    assert.equal(out[hashed[0] as string]?.op, 'unknown');
  });

  it('accepts a custom reserved set', () => {
    const out = redactQueryParams({ sort: 'name', limit: '5' }, { ...options, reserved: new Set(['sort']) });
    assert.deepEqual(out, { sort: { op: 'param' }, limit: { op: 'eq' } });
  });
});

describe('redactedQueryJson hash domains', () => {
  const known = { field: (field: string) => ['name', 'unknown'].includes(field), ops: new Set(['eq']) };
  const options = { sensitive: () => true, secret: TEST_SECRET, domain: 'query:census:person', known };
  const redact = (params: Record<string, string>) =>
    JSON.parse(redactedQueryJson(params, options)) as Record<string, RedactedQueryParam>;

  it('never gives a field value the hash of an unknown parameter name with the same text', () => {
    // Fields named `name` and `unknown` are valid: their values must not share a domain with the hashed names of
    // unknown parameters, nor with the values of unknown parameters.
    const byField = redact({ name: 'FAKE-412781' }).name?.value_hash;
    const [hashedName] = Object.keys(redact({ 'FAKE-412781': '1' }));
    assert.ok(byField !== undefined && hashedName !== undefined);
    assert.notEqual(byField, hashedName);
    const unknownField = redact({ unknown: 'FAKE-412781' }).unknown?.value_hash;
    const unknownValue = Object.values(redact({ nid: 'FAKE-412781' }))[0]?.value_hash;
    assert.ok(unknownField !== undefined && unknownValue !== undefined);
    assert.notEqual(unknownField, unknownValue);
  });
});

describe('redactedQueryJson size', () => {
  const known = { field: (field: string) => field === 'district', ops: new Set(['eq']) };
  const options = { sensitive: () => false, secret: TEST_SECRET, domain: 'query:census:person', known };

  it('stays small for a URL of thousands of short unknown names, keeping the known ones', () => {
    const params: Record<string, string> = { district: 'North' };
    for (let i = 0; i < 2500; i++) params[`n${i.toString(36)}`] = 'v';
    const json = redactedQueryJson(params, options);
    const out = JSON.parse(json) as Record<string, RedactedQueryParam>;
    assert.deepEqual(out.district, { op: 'eq' });
    assert.ok(json.length < 10_000, `${json.length} characters for a query of 2500 names`);
    assert.ok(Object.keys(out).length > 2 && Object.keys(out).length <= 40);
    for (const [name, entry] of Object.entries(out)) {
      if (name !== 'district') assert.equal(entry.op, 'unknown');
    }
    // The same names give the same record.
    assert.equal(redactedQueryJson(params, options), json);
  });

  it('never writes the same key twice, whatever the names are', () => {
    const params: Record<string, string> = {};
    for (let i = 0; i < 40; i++) params[`n${i}`] = 'v';
    const folded = Object.keys(params).slice(-8);
    // Names that spell what the overflow of unknown names might be hashed from.
    const tricky = { [JSON.stringify(folded)]: 'x', [folded.join('&')]: 'x', [folded.join(',')]: 'x' };
    const json = redactedQueryJson({ ...tricky, ...params }, options);
    const keys = [...json.matchAll(/"(hmac-sha256:[0-9a-f]{64})":\{/g)].map((match) => match[1]);
    assert.equal(new Set(keys).size, keys.length);
    assert.equal(JSON.stringify(JSON.parse(json)), json);
  });
});
