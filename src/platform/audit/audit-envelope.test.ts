import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { describe, it } from 'node:test';
import { fixedClock } from '../clock.ts';
import {
  type AuditEnvelope,
  buildEnvelope,
  buildEnvelopeLine,
  serializeEnvelope,
  verifyAuditChain,
  verifyEnvelopeLine,
} from './audit-envelope.ts';
import { OTHER_SECRET, sampleRecord, sequenceRandom, TEST_SECRET } from './audit-test-support.ts';
import { canonicalJson } from './canonical-json.ts';

function makeChain(length: number, secret = TEST_SECRET): string[] {
  const clock = fixedClock('2025-01-01T00:00:00.000Z');
  const random = sequenceRandom();
  const lines: string[] = [];
  let prevHash: string | null = null;
  for (let n = 1; n <= length; n++) {
    const envelope: AuditEnvelope = buildEnvelope({
      record: sampleRecord(n),
      prevHash,
      secret,
      clock,
      random,
    });
    lines.push(serializeEnvelope(envelope));
    prevHash = envelope.record_hash;
    clock.advance(7);
  }
  return lines;
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    const value = { b: 1, a: { d: [3, { z: true, y: null }], c: 'x' } };
    assert.equal(canonicalJson(value), '{"a":{"c":"x","d":[3,{"y":null,"z":true}]},"b":1}');
  });

  it('follows JSON.stringify for values without a JSON form, so a parsed line re-hashes identically', () => {
    const value = { keep: 1, drop: undefined, list: [undefined, Number.NaN], inf: Number.POSITIVE_INFINITY };
    assert.equal(canonicalJson(value), '{"inf":null,"keep":1,"list":[null,null]}');
    assert.equal(canonicalJson(JSON.parse(JSON.stringify(value))), canonicalJson(value));
    assert.equal(canonicalJson({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('rejects bigint and bare undefined', () => {
    assert.throws(() => canonicalJson({ n: 1n }), TypeError);
    assert.throws(() => canonicalJson(undefined), TypeError);
  });
});

describe('buildEnvelope', () => {
  it('takes its id and time from the injected random and clock and keys the hash with the secret', () => {
    const clock = fixedClock('2025-03-04T05:06:07.089Z');
    const envelope = buildEnvelope({
      record: { b: 2, a: 'x' },
      prevHash: null,
      secret: TEST_SECRET,
      clock,
      random: sequenceRandom(),
    });
    assert.equal(envelope.timestamp_unix_ms, Date.parse('2025-03-04T05:06:07.089Z'));
    assert.match(envelope.envelope_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(envelope.prev_hash, null);
    const body = `{"envelope_id":"${envelope.envelope_id}","timestamp_unix_ms":${envelope.timestamp_unix_ms},"prev_hash":null,"record":{"b":2,"a":"x"}}`;
    assert.equal(envelope.record_hash, createHmac('sha256', TEST_SECRET).update(body).digest('hex'));
    const line = serializeEnvelope(envelope);
    assert.deepEqual(Object.keys(JSON.parse(line)), [
      'envelope_id',
      'timestamp_unix_ms',
      'prev_hash',
      'record_hash',
      'record',
    ]);
    // The record keeps its own key order, on the line and in the hash input.
    assert.ok(line.endsWith('"record":{"b":2,"a":"x"}}'));
    const fast = buildEnvelopeLine({
      record: { b: 2, a: 'x' },
      prevHash: null,
      secret: TEST_SECRET,
      clock,
      random: sequenceRandom(),
    });
    assert.equal(fast.line, line);
    assert.equal(fast.recordHash, envelope.record_hash);
  });
});

describe('verifyAuditChain', () => {
  it('accepts an intact chain and reports the count and the last hash', () => {
    const lines = makeChain(5);
    const result = verifyAuditChain(lines, TEST_SECRET, null);
    const last = JSON.parse(lines[4] as string) as AuditEnvelope;
    assert.deepEqual(result, { ok: true, count: 5, lastHash: last.record_hash, firstPrevHash: null });
    assert.deepEqual(verifyAuditChain([], TEST_SECRET), {
      ok: true,
      count: 0,
      lastHash: null,
      firstPrevHash: undefined,
    });
  });

  it('detects a change of any single byte, on the line that was changed', () => {
    const lines = makeChain(4);
    for (let index = 0; index < lines.length; index++) {
      const line = lines[index] as string;
      for (let at = 0; at < line.length; at++) {
        const replacement = line[at] === '1' ? '2' : '1';
        const tampered = [...lines];
        tampered[index] = line.slice(0, at) + replacement + line.slice(at + 1);
        const result = verifyAuditChain(tampered, TEST_SECRET, null);
        assert.equal(result.ok, false, `byte ${at} of line ${index + 1} changed undetected`);
        assert.equal(result.ok === false && result.line, index + 1);
      }
    }
  });

  it('detects added whitespace and duplicate keys that JSON.parse alone would hide', () => {
    const lines = makeChain(2);
    const spaced = [lines[0] as string, (lines[1] as string).replace('{"envelope_id"', '{ "envelope_id"')];
    assert.deepEqual(verifyAuditChain(spaced, TEST_SECRET), {
      ok: false,
      line: 2,
      reason: 'line is not in the canonical envelope serialisation',
    });
    const duplicated = [(lines[0] as string).replace('"record":{', '"record":{"status_code":500,')];
    assert.equal(verifyAuditChain(duplicated, TEST_SECRET).ok, false);
  });

  it('detects a deleted line at the line that lost its predecessor', () => {
    const lines = makeChain(5);
    const result = verifyAuditChain([...lines.slice(0, 2), ...lines.slice(3)], TEST_SECRET, null);
    assert.equal(result.ok, false);
    assert.equal(result.ok === false && result.line, 3);
    assert.match(result.ok === false ? result.reason : '', /prev_hash/);
    // Dropping the first line is only visible when the start of the chain is anchored.
    const headless = verifyAuditChain(lines.slice(1), TEST_SECRET, null);
    assert.deepEqual(headless.ok === false && headless.line, 1);
    assert.equal(verifyAuditChain(lines.slice(1), TEST_SECRET).ok, true);
  });

  it('detects reordered lines', () => {
    const [a, b, c, d] = makeChain(4) as [string, string, string, string];
    const result = verifyAuditChain([a, c, b, d], TEST_SECRET, null);
    assert.equal(result.ok === false && result.line, 2);
  });

  it('checks the anchor given as startPrevHash', () => {
    const lines = makeChain(3);
    const first = JSON.parse(lines[0] as string) as AuditEnvelope;
    assert.equal(verifyAuditChain(lines.slice(1), TEST_SECRET, first.record_hash).ok, true);
    const wrong = verifyAuditChain(lines.slice(1), TEST_SECRET, 'a'.repeat(64));
    assert.equal(wrong.ok === false && wrong.line, 1);
  });

  it('rejects records hashed with another secret', () => {
    const result = verifyAuditChain(makeChain(2, OTHER_SECRET), TEST_SECRET, null);
    assert.equal(result.ok === false && result.line, 1);
    assert.match(result.ok === false ? result.reason : '', /record_hash/);
  });

  it('rejects malformed lines, extra envelope fields and empty lines inside the chain', () => {
    const lines = makeChain(3);
    assert.equal(verifyAuditChain(['not json'], TEST_SECRET).ok, false);
    assert.equal(verifyAuditChain(['[1,2]'], TEST_SECRET).ok, false);
    const extra = (lines[0] as string).replace('{"envelope_id"', '{"note":"x","envelope_id"');
    assert.deepEqual(verifyAuditChain([extra], TEST_SECRET), {
      ok: false,
      line: 1,
      reason: 'unexpected envelope field "note"',
    });
    const gap = verifyAuditChain([lines[0] as string, '', lines[1] as string], TEST_SECRET);
    assert.equal(gap.ok === false && gap.line, 2);
    // A final newline split off by the caller is tolerated.
    assert.equal(verifyAuditChain([...lines, ''], TEST_SECRET).ok, true);
  });

  it('reports a record nested too deeply to re-serialise as a line that does not verify, without throwing', () => {
    const line = (makeChain(1)[0] as string).replace(
      /"record":\{/,
      `"record":{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)},`,
    );
    const result = verifyAuditChain([line], TEST_SECRET);
    assert.equal(result.ok === false && result.line, 1);
    assert.match(result.ok === false ? result.reason : '', /nested too deeply/);
  });

  it('detects an inserted envelope that carries a valid hash of its own', () => {
    const lines = makeChain(3);
    const stranger = serializeEnvelope(
      buildEnvelope({
        record: { injected: true },
        prevHash: (JSON.parse(lines[0] as string) as AuditEnvelope).prev_hash,
        secret: TEST_SECRET,
        clock: fixedClock('2025-01-01T00:00:00.001Z'),
        random: sequenceRandom(),
      }),
    );
    assert.equal(verifyEnvelopeLine(stranger, TEST_SECRET).ok, true);
    const result = verifyAuditChain([lines[0] as string, stranger, ...lines.slice(1)], TEST_SECRET, null);
    assert.equal(result.ok === false && result.line, 2);
  });
});
