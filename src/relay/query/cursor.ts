// Signed opaque cursors bound to the query intent and the data generation.
import { createHmac, hash, timingSafeEqual } from 'node:crypto';
import { relayProblem } from '../problems.ts';

export interface CursorPayload {
  /** Digest of the query intent (dataset, entity, relationship, filters, projection, purpose, caller). */
  readonly i: string;
  /** Version of the data generation the position belongs to. */
  readonly g: string;
  /** Last row number served. */
  readonly p: number;
}

export interface CursorCodec {
  encode(payload: CursorPayload): string;
  /** Verifies signature and intent; the position is returned only for a cursor of this exact query and generation. */
  decode(cursor: string, intent: string, generation: string): number;
}

const MAX_CURSOR_LENGTH = 512;
const TAG_BYTES = 16;

export function createCursorCodec(secret: Buffer): CursorCodec {
  const tag = (body: string) => createHmac('sha256', secret).update(body).digest().subarray(0, TAG_BYTES);
  return {
    encode(payload) {
      const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
      return `${body}.${tag(body).toString('base64url')}`;
    },
    decode(cursor, intent, generation) {
      const payload = verify(cursor, tag);
      if (payload.i !== intent || payload.g !== generation) {
        throw relayProblem(
          'pagination.cursor_invalidated',
          'the cursor belongs to a different query or to data that has since been reloaded; restart from the first page',
        );
      }
      return payload.p;
    },
  };
}

function verify(cursor: string, tag: (body: string) => Buffer): CursorPayload {
  const malformed = () =>
    relayProblem('pagination.cursor_malformed', 'the cursor is not one this relay issued');
  if (cursor.length > MAX_CURSOR_LENGTH) throw malformed();
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw malformed();
  const presented = Buffer.from(signature, 'base64url');
  if (presented.length !== TAG_BYTES || !timingSafeEqual(presented, tag(body))) throw malformed();
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw malformed();
  }
  const p = payload as Partial<CursorPayload>;
  if (
    typeof p.i !== 'string' ||
    typeof p.g !== 'string' ||
    !Number.isSafeInteger(p.p) ||
    (p.p as number) < 0
  ) {
    throw malformed();
  }
  return p as CursorPayload;
}

/** A short digest of everything a cursor must not outlive. */
export function intentDigest(parts: readonly unknown[]): string {
  // One-shot hash: the same digest as createHash, without a hash object per request.
  return hash('sha256', JSON.stringify(parts), 'base64url').slice(0, 22);
}
