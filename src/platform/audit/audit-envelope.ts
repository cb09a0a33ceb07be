// The audit envelope (relay contract §2.12): ULID, timestamp and a keyed hash chain around each record.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Random } from '../random.ts';

export interface AuditEnvelope {
  readonly envelope_id: string;
  readonly timestamp_unix_ms: number;
  /** The previous envelope's `record_hash`, or null for the first record of a chain. */
  readonly prev_hash: string | null;
  /**
   * Lowercase hex HMAC-SHA256 (audit secret) over the JSON of the other four fields, in the order
   * envelope_id, timestamp_unix_ms, prev_hash, record, with the record's keys in the order they are written.
   */
  readonly record_hash: string;
  readonly record: Record<string, unknown>;
}

export type AuditChainResult =
  | {
      ok: true;
      count: number;
      lastHash: string | null;
      /** The first record's prev_hash: null when it starts the chain; undefined when there is no record. */
      firstPrevHash: string | null | undefined;
    }
  | { ok: false; line: number; reason: string };

/** An audit record: an object, or its JSON text exactly as JSON.stringify would write it. */
export type AuditRecord = Record<string, unknown> | string;

export interface BuildEnvelopeInput {
  readonly record: AuditRecord;
  readonly prevHash: string | null;
  readonly secret: Buffer;
  readonly clock: Clock;
  readonly random: Random;
}

export const HASH_PATTERN = /^[0-9a-f]{64}$/;
const ULID_PATTERN = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const ENVELOPE_KEYS = ['envelope_id', 'timestamp_unix_ms', 'prev_hash', 'record_hash', 'record'];

export function buildEnvelope(
  input: BuildEnvelopeInput & { readonly record: Record<string, unknown> },
): AuditEnvelope {
  const timestamp = input.clock.now();
  const envelopeId = input.random.ulid(timestamp);
  return {
    envelope_id: envelopeId,
    timestamp_unix_ms: timestamp,
    prev_hash: input.prevHash,
    record_hash: computeRecordHash(input.secret, envelopeId, timestamp, input.prevHash, input.record),
    record: input.record,
  };
}

export function computeRecordHash(
  secret: Buffer,
  envelopeId: string,
  timestampUnixMs: number,
  prevHash: string | null,
  record: Record<string, unknown>,
): string {
  return hashBody(secret, envelopeId, timestampUnixMs, prevHash, JSON.stringify(record));
}

function hashBody(
  secret: Buffer,
  id: string,
  timestamp: number,
  prevHash: string | null,
  recordJson: string,
): string {
  // The ULID and the hex hash need no JSON escaping, so the body is assembled without a second stringify.
  const prev = prevHash === null ? 'null' : `"${prevHash}"`;
  const body = `{"envelope_id":"${id}","timestamp_unix_ms":${timestamp},"prev_hash":${prev},"record":${recordJson}}`;
  return createHmac('sha256', secret).update(body, 'utf8').digest('hex');
}

/** One JSONL line (without the newline), fields in envelope order and the record in its own key order. */
export function serializeEnvelope(envelope: AuditEnvelope): string {
  return JSON.stringify({
    envelope_id: envelope.envelope_id,
    timestamp_unix_ms: envelope.timestamp_unix_ms,
    prev_hash: envelope.prev_hash,
    record_hash: envelope.record_hash,
    record: envelope.record,
  });
}

/** The writer's fast path: the envelope line and its hash, serialising the record once. */
export function buildEnvelopeLine(input: BuildEnvelopeInput): { line: string; recordHash: string } {
  const timestamp = input.clock.now();
  const id = input.random.ulid(timestamp);
  const record = input.record;
  const recordJson = typeof record === 'string' ? record : JSON.stringify(record);
  const prev = input.prevHash === null ? 'null' : `"${input.prevHash}"`;
  const head = `{"envelope_id":"${id}","timestamp_unix_ms":${timestamp},"prev_hash":${prev}`;
  // The hash input is the line without its record_hash member.
  const recordHash = createHmac('sha256', input.secret)
    .update(`${head},"record":${recordJson}}`)
    .digest('hex');
  return { line: `${head},"record_hash":"${recordHash}","record":${recordJson}}`, recordHash };
}

/** Parses one line and checks its shape and its own record_hash (not its link to a predecessor). */
export function verifyEnvelopeLine(
  line: string,
  secret: Buffer,
): { ok: true; envelope: AuditEnvelope } | { ok: false; reason: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return { ok: false, reason: 'line is not valid JSON' };
  }
  const shapeError = checkShape(parsed);
  if (shapeError !== undefined) return { ok: false, reason: shapeError };
  const envelope = parsed as AuditEnvelope;
  let serialized: string;
  try {
    serialized = serializeEnvelope(envelope);
  } catch {
    // JSON.parse takes any depth, JSON.stringify runs out of stack: no record the services write comes near it.
    return { ok: false, reason: 'record is nested too deeply to be an audit record' };
  }
  // Requiring the exact serialisation rejects whitespace edits and duplicate keys that JSON.parse would hide.
  if (serialized !== line) {
    return { ok: false, reason: 'line is not in the canonical envelope serialisation' };
  }
  const expected = computeRecordHash(
    secret,
    envelope.envelope_id,
    envelope.timestamp_unix_ms,
    envelope.prev_hash,
    envelope.record,
  );
  if (!timingSafeEqual(Buffer.from(expected, 'hex'), Buffer.from(envelope.record_hash, 'hex'))) {
    return {
      ok: false,
      reason: 'record_hash does not match the envelope contents (tampered or wrong secret)',
    };
  }
  return { ok: true, envelope };
}

function checkShape(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'line is not a JSON object';
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    if (!ENVELOPE_KEYS.includes(key)) return `unexpected envelope field ${JSON.stringify(key)}`;
  }
  const { envelope_id, timestamp_unix_ms, prev_hash, record_hash, record } = fields;
  if (typeof envelope_id !== 'string' || !ULID_PATTERN.test(envelope_id)) return 'envelope_id is not a ULID';
  if (
    typeof timestamp_unix_ms !== 'number' ||
    !Number.isSafeInteger(timestamp_unix_ms) ||
    timestamp_unix_ms < 0
  ) {
    return 'timestamp_unix_ms is not a non-negative integer';
  }
  if (prev_hash !== null && (typeof prev_hash !== 'string' || !HASH_PATTERN.test(prev_hash))) {
    return 'prev_hash is neither null nor 64 lowercase hex';
  }
  if (typeof record_hash !== 'string' || !HASH_PATTERN.test(record_hash)) {
    return 'record_hash is not 64 lowercase hex';
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    return 'record is not an object';
  return undefined;
}

/**
 * Verifies a sequence of envelope lines (1-based line numbers in the result). `startPrevHash` anchors the
 * chain: a hash or null (the first line must then be a genesis record); when omitted, the first line's
 * prev_hash is accepted as found, which is what a file whose predecessors were rotated away needs.
 * A single trailing empty line (a final newline split off) is ignored; an empty line inside the chain is not.
 * `onRecord` sees each record_hash once its line has verified.
 */
export function verifyAuditChain(
  lines: Iterable<string>,
  secret: Buffer,
  startPrevHash?: string | null,
  onRecord?: (recordHash: string) => void,
): AuditChainResult {
  let expected = startPrevHash;
  let lastHash: string | null = startPrevHash ?? null;
  let count = 0;
  let firstPrevHash: string | null | undefined;
  let lineNumber = 0;
  let emptyAt = 0;
  for (const line of lines) {
    lineNumber++;
    if (line === '') {
      if (emptyAt === 0) emptyAt = lineNumber;
      continue;
    }
    if (emptyAt !== 0) return { ok: false, line: emptyAt, reason: 'empty line inside the chain' };
    const checked = verifyEnvelopeLine(line, secret);
    if (!checked.ok) return { ok: false, line: lineNumber, reason: checked.reason };
    const { prev_hash, record_hash } = checked.envelope;
    if (expected !== undefined && prev_hash !== expected) {
      const reason =
        expected === null
          ? 'prev_hash is set but the chain should start here (expected null)'
          : 'prev_hash does not match the record_hash of the preceding record (missing, inserted or reordered line)';
      return { ok: false, line: lineNumber, reason };
    }
    if (count === 0) firstPrevHash = prev_hash;
    onRecord?.(record_hash);
    expected = record_hash;
    lastHash = record_hash;
    count++;
  }
  return { ok: true, count, lastHash, firstPrevHash };
}
