import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalJson } from '../../platform/audit/canonical-json.ts';
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { EvaluationTarget } from './parse-evaluation-request.ts';
import { targetIdentity, targetKeys } from './target-ref.ts';

const SECRET = Buffer.from('target-ref-test-secret-0123456789abcdef');

const target = (type: string, id: string | undefined, identifiers: [string, string][]): EvaluationTarget => ({
  type,
  id,
  identifiers: new Map(identifiers),
  attributes: {},
});

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
          const identifiers = [...subject.identifiers].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
          assert.equal(targetIdentity(subject), canonicalJson({ type, id: id ?? null, identifiers }));
        },
      ),
    );
  });

  it('are keyed hashes of that identity, whatever the attributes, and follow the secret', () => {
    const subject = target('person', 'P-1', [
      ['nid', 'A'],
      ['eid', 'B'],
    ]);
    const identity = '{"id":"P-1","identifiers":[["eid","B"],["nid","A"]],"type":"person"}';
    const keys = targetKeys(SECRET, subject);
    assert.deepEqual(keys.ref, {
      type: 'person',
      handle: `amref:v1:${keyedHash(SECRET, 'target_ref', identity).slice('hmac-sha256:'.length, 'hmac-sha256:'.length + 32)}`,
      identifier_schemes: ['eid', 'nid'],
    });
    assert.equal(keys.auditHash, keyedHash(SECRET, 'audit:target', identity));
    assert.deepEqual(targetKeys(SECRET, { ...subject, attributes: { name: 'x' } }), keys);
    const other = targetKeys(Buffer.from('another-secret-0123456789abcdef01234567'), subject);
    assert.notEqual(other.ref.handle, keys.ref.handle);
    assert.notEqual(other.auditHash, keys.auditHash);
  });
});
