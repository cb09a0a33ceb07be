// Signed, sealed cursors bound to the query intent and the data generation. The payload is encrypted: a snapshot
// cursor's position counts the rows of the whole table before it (rows the caller may not list), and a live one
// carries a primary key; neither is the client's to read. The encryption is deterministic (its IV derived from the
// payload), so that replicas sharing the secret issue the same cursor for the same page (the same ETag).
import { createCipheriv, createDecipheriv, createHmac, hash, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { relayProblem } from '../problems.ts';
import type { Filter } from './parse-collection-query.ts';

export interface CursorPayload {
  /** Digest of the query intent (dataset, entity, relationship, filters, projection, purpose, caller). */
  readonly i: string;
  /** Version of the data generation the position belongs to. */
  readonly g: string;
  /** Last row number served. */
  readonly p: number;
}

/** A live table's cursor: the position is the last primary key served, as PostgreSQL's text of it. */
export interface KeyCursorPayload {
  readonly i: string;
  readonly g: string;
  readonly k: string;
}

export interface CursorCodec {
  /**
   * Names the signing key without revealing it: the ETag of a page covers it, as the page's next_cursor is signed
   * with that key (a relay with another key must not answer 304 to a body holding cursors it refuses).
   */
  readonly keyId: string;
  encode(payload: CursorPayload): string;
  /** Verifies signature and intent; the position is returned only for a cursor of this exact query and generation. */
  decode(cursor: string, intent: string, generation: string): number;
  encodeKey(payload: KeyCursorPayload): string;
  /** As `decode`, for a key cursor: the last primary key served. */
  decodeKey(cursor: string, intent: string, generation: string): string;
}

// Room for a live table's primary key (its text) in the cursor, with the request still under 8 KiB: a key as long
// as a PostgreSQL unique index holds uncompressed (2,704 bytes) fits in base64 whatever its characters, as a long
// payload is deflated (JSON spells a control character in six, and an index holds a repetitive key compressed).
export const MAX_CURSOR_LENGTH = 6144;
/** The first sealed byte: the JSON as it is, or deflated. */
const PLAIN = 0;
const DEFLATED = 1;
const IV_BYTES = 16;
/** Payloads shorter than this are left plain (every snapshot cursor, most keys): deflating them gains nothing. */
const DEFLATE_FROM = 256;
/** Bound on an inflated payload: JSON of the longest key an index holds compressed, every character escaped. */
const MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
const TAG_BYTES = 16;
/** A 16-byte tag in unpadded base64url: 22 characters. */
const SIGNATURE_TEXT = /^[A-Za-z0-9_-]{22}$/;
/** Cursors remembered once signed (a bound on memory; the set starts over when full). */
const SIGNED_CURSORS = 1024;

export function createCursorCodec(secret: Buffer): CursorCodec {
  const tag = (body: string) => createHmac('sha256', secret).update(body).digest().subarray(0, TAG_BYTES);
  const sealing = sealingKeys(secret);
  // The first page of a popular query ends at the same position every time: its cursor is signed once.
  const signed = new Map<string, string>();
  const sign = (payload: CursorPayload | KeyCursorPayload) => {
    const json = JSON.stringify(payload);
    let cursor = signed.get(json);
    if (cursor === undefined) {
      const body = seal(json, sealing);
      cursor = `${body}.${tag(body).toString('base64url')}`;
      if (signed.size >= SIGNED_CURSORS) signed.clear();
      signed.set(json, cursor);
    }
    return cursor;
  };
  const check = (cursor: string, intent: string, generation: string) => {
    const payload = verify(cursor, tag, sealing);
    if (payload.i !== intent || payload.g !== generation) {
      throw relayProblem(
        'pagination.cursor_invalidated',
        'the cursor belongs to a different query or to data that has since been reloaded; restart from the first page',
      );
    }
    return payload;
  };
  return {
    keyId: createHmac('sha256', secret).update('ambit-relay cursor key id').digest('base64url').slice(0, 22),
    encode: sign,
    decode(cursor, intent, generation) {
      const payload = check(cursor, intent, generation);
      if (!('p' in payload)) throw malformedCursor();
      return payload.p;
    },
    encodeKey: sign,
    decodeKey(cursor, intent, generation) {
      const payload = check(cursor, intent, generation);
      if (!('k' in payload)) throw malformedCursor();
      return payload.k;
    },
  };
}

function malformedCursor() {
  return relayProblem('pagination.cursor_malformed', 'the cursor is not one this relay issued');
}

function verify(
  cursor: string,
  tag: (body: string) => Buffer,
  sealing: SealingKeys,
): CursorPayload | KeyCursorPayload {
  const malformed = malformedCursor;
  if (cursor.length > MAX_CURSOR_LENGTH) throw malformed();
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw malformed();
  // Compared as text, in its one spelling: decoding the signature would ignore characters outside base64url,
  // padding and the unused bits of its last character, so an altered cursor would still verify.
  if (!SIGNATURE_TEXT.test(signature)) throw malformed();
  const expected = tag(body).toString('base64url');
  if (!timingSafeEqual(Buffer.from(signature, 'latin1'), Buffer.from(expected, 'latin1'))) throw malformed();
  let payload: unknown;
  try {
    payload = JSON.parse(unseal(body, sealing));
  } catch {
    throw malformed();
  }
  const p = payload as Partial<CursorPayload & KeyCursorPayload>;
  if (typeof p.i !== 'string' || typeof p.g !== 'string') throw malformed();
  if (p.k === undefined) {
    if (!Number.isSafeInteger(p.p) || (p.p as number) < 0) throw malformed();
    return { i: p.i, g: p.g, p: p.p as number };
  }
  if (typeof p.k !== 'string' || p.p !== undefined) throw malformed();
  return { i: p.i, g: p.g, k: p.k };
}

interface SealingKeys {
  readonly cipher: Buffer;
  readonly iv: Buffer;
}

/** Keys of their own for the cipher and its IVs, derived from the cursor secret (the signature uses it as it is). */
function sealingKeys(secret: Buffer): SealingKeys {
  const derive = (purpose: string) => createHmac('sha256', secret).update(purpose).digest();
  return { cipher: derive('ambit-relay cursor cipher key'), iv: derive('ambit-relay cursor iv key') };
}

/** The payload encrypted, as base64url: deflated first when that is shorter. */
function seal(json: string, keys: SealingKeys): string {
  const text = Buffer.from(json);
  let content = Buffer.concat([Buffer.of(PLAIN), text]);
  if (json.length >= DEFLATE_FROM) {
    const deflated = Buffer.concat([Buffer.of(DEFLATED), deflateRawSync(text)]);
    if (deflated.length < content.length) content = deflated;
  }
  // A synthetic IV: the same payload gives the same cursor, two payloads never share an IV.
  const iv = createHmac('sha256', keys.iv).update(content).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-ctr', keys.cipher, iv);
  return Buffer.concat([iv, cipher.update(content), cipher.final()]).toString('base64url');
}

/** The JSON of a body whose signature was verified (only this relay's own output is ever inflated). */
function unseal(body: string, keys: SealingKeys): string {
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length <= IV_BYTES) throw malformedCursor();
  const decipher = createDecipheriv('aes-256-ctr', keys.cipher, bytes.subarray(0, IV_BYTES));
  const content = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES)), decipher.final()]);
  if (content[0] === PLAIN) return content.subarray(1).toString('utf8');
  if (content[0] !== DEFLATED) throw malformedCursor();
  return inflateRawSync(content.subarray(1), { maxOutputLength: MAX_PAYLOAD_BYTES }).toString('utf8');
}

/** A short digest of everything a cursor must not outlive. */
export function intentDigest(parts: readonly unknown[]): string {
  // One-shot hash: the same digest as createHash, without a hash object per request.
  return hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 22);
}

/**
 * The filters as a cursor is bound to them: a set, so `a=1&b=2` and `b=2&a=1` (or `.in=x,y` and `.in=y,x`) are one
 * query whose cursors continue each other, as their answers are the same rows in the same order.
 */
export function filterIntent(filters: readonly Filter[]): string[] {
  return filters
    .map(({ field, op, values }) => {
      const listed = op === 'in' ? values.map((value) => JSON.stringify(value)).sort() : values;
      return JSON.stringify([field.name, op, listed]);
    })
    .sort();
}
