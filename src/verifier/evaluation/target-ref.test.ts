import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';
import { targetIdentity, targetKeys } from './target-ref.ts';

const SECRET = Buffer.from('target-ref-test-secret-0123456789abcdef');

const target = (
  type: string,
  id: string | undefined,
  identifiers: [string, string][],
  attributes: EvaluationTarget['attributes'] = {},
): EvaluationTarget => ({ type, id, identifiers: new Map(identifiers), attributes });

const sorted = (pairs: Iterable<[string, string]>) =>
  [...pairs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

describe('target keys', () => {
  it('stand for the canonical JSON of type, id and identifiers sorted by scheme', () => {
    const text = fc.string({ unit: 'binary' });
    fc.assert(
      fc.property(
        text,
        fc.option(text, { nil: undefined }),
        fc.array(fc.tuple(text, text)),
        (type, id, pairs) => {
          const subject = target(type, id, pairs);
          const identifiers = sorted(subject.identifiers);
          assert.equal(targetIdentity(subject, []), canonicalJson({ type, id: id ?? null, identifiers }));
        },
      ),
    );
  });

  it('add the lookup attributes a target sends, as a lookup sends them (text, blank ones left out)', () => {
    const name = fc.stringMatching(/^[A-Za-z0-9_]{1,8}$/);
    const value = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
    fc.assert(
      fc.property(
        fc.dictionary(name, value),
        fc.uniqueArray(name),
        fc.option(fc.string(), { nil: undefined }),
        (attributes, lookups, id) => {
          const subject = target('person', id, [['nid', 'A']], attributes);
          const sent = sorted(
            lookups.flatMap((key): [string, string][] => {
              const sentValue = Object.hasOwn(attributes, key) ? attributes[key] : null;
              return sentValue === null || String(sentValue).trim() === '' ? [] : [[key, String(sentValue)]];
            }),
          );
          const plain = { id: id ?? null, identifiers: [['nid', 'A']], type: 'person' };
          assert.equal(
            targetIdentity(subject, [...lookups].sort()),
            canonicalJson(sent.length === 0 ? plain : { attributes: sent, ...plain }),
          );
        },
      ),
    );
  });

  it('are keyed hashes of that identity, and follow the secret', () => {
    const subject = target('person', 'P-1', [
      ['nid', 'A'],
      ['eid', 'B'],
    ]);
    const identity = '{"id":"P-1","identifiers":[["eid","B"],["nid","A"]],"type":"person"}';
    const keys = targetKeys(SECRET, subject, ['case_no']);
    assert.deepEqual(keys.ref, {
      type: 'person',
      handle: `amref:v1:${keyedHash(SECRET, 'target_ref', identity).slice('hmac-sha256:'.length, 'hmac-sha256:'.length + 32)}`,
      identifier_schemes: ['eid', 'nid'],
    });
    assert.equal(keys.auditHash, keyedHash(SECRET, 'audit:target', identity));
    const other = targetKeys(Buffer.from('another-secret-0123456789abcdef01234567'), subject, ['case_no']);
    assert.notEqual(other.ref.handle, keys.ref.handle);
    assert.notEqual(other.auditHash, keys.auditHash);
  });

  it('tell apart subjects found by a lookup attribute, and ignore attributes no lookup uses', () => {
    const byCase = (value: string | number, extra: EvaluationTarget['attributes'] = {}) =>
      targetKeys(SECRET, target('person', undefined, [], { case_no: value, ...extra }), ['case_no']);
    const first = byCase('C-1');
    const second = byCase('C-2');
    assert.notEqual(first.ref.handle, second.ref.handle);
    assert.notEqual(first.auditHash, second.auditHash);
    // The same lookup value is the same subject, however it was sent and whatever the rule inputs beside it.
    assert.deepEqual(byCase('7'), byCase(7));
    assert.deepEqual(byCase('C-1', { newborns: 2 }), first);
    // Neither the handle nor the audit hash holds the value.
    assert.doesNotMatch(`${first.ref.handle} ${first.auditHash}`, /C-1/);
  });

  it('tell apart identifiers of one scheme and value issued by different countries or issuers', () => {
    const keysOf = (qualifiers?: { issuer?: string; country?: string }) =>
      targetKeys(
        SECRET,
        {
          ...target('person', undefined, [['nid', 'A']]),
          ...(qualifiers && { identifierQualifiers: new Map([['nid', qualifiers]]) }),
        },
        [],
      );
    const handles = [
      keysOf(),
      keysOf({ country: 'FR' }),
      keysOf({ country: 'DE' }),
      keysOf({ issuer: 'FR' }),
      keysOf({ issuer: 'https://a.example' }),
      keysOf({ issuer: 'https://a.example', country: 'FR' }),
    ];
    assert.equal(new Set(handles.map((keys) => keys.ref.handle)).size, handles.length);
    assert.equal(new Set(handles.map((keys) => keys.auditHash)).size, handles.length);
    // A country code is one whatever its case.
    assert.deepEqual(keysOf({ country: 'fr' }), keysOf({ country: 'FR' }));
    // Without a qualifier the identity is the one written above.
    assert.equal(
      targetIdentity(target('person', undefined, [['nid', 'A']]), []),
      '{"id":null,"identifiers":[["nid","A"]],"type":"person"}',
    );
  });

  it('echo a profile sent in the ref, outside the identity: the handle and audit hash stay the same', () => {
    const subject = target('person', 'P-1', [['nid', 'A']]);
    const plain = targetKeys(SECRET, subject, []);
    assert.equal(Object.hasOwn(plain.ref, 'profile'), false);
    for (const profile of ['urn:example:adult', '']) {
      const profiled = targetKeys(SECRET, { ...subject, profile }, []);
      assert.deepEqual(profiled.ref, { ...plain.ref, profile });
      assert.equal(profiled.auditHash, plain.auditHash);
    }
  });
});
