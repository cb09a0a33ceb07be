import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { inflateRawSync } from 'node:zlib';
import { isProblem } from '../../platform/problem/problem.ts';
import { createCursorCodec, MAX_CURSOR_LENGTH } from './cursor.ts';

const codec = createCursorCodec(Buffer.from('cursor-test-secret-0123456789abcdef0123'));

/** `length` characters of `alphabet` in a fixed order no compressor shortens much. */
function scrambled(alphabet: string, length: number): string {
  let text = '';
  for (let block = 0; text.length < length; block++) {
    for (const byte of createHash('sha256').update(String(block)).digest())
      text += alphabet[byte % alphabet.length];
  }
  return text.slice(0, length);
}

/** What raw-inflating `bytes` gives, or nothing when they are not a deflate stream. */
function inflated(bytes: Buffer): string {
  try {
    return inflateRawSync(bytes).toString('latin1');
  } catch {
    return '';
  }
}

function code(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return isProblem(error) ? error.code : 'not a problem';
  }
  return undefined;
}

describe('cursor codec', () => {
  it('gives back the position of its own cursors, signed the same way each time', () => {
    const first = codec.encode({ i: 'intent', g: 'gen', p: 20 });
    assert.equal(codec.encode({ i: 'intent', g: 'gen', p: 20 }), first);
    assert.equal(codec.decode(first, 'intent', 'gen'), 20);
    const key = codec.encodeKey({ i: 'intent', g: 'gen', k: 'F0424242' });
    assert.equal(codec.decodeKey(key, 'intent', 'gen'), 'F0424242');
    assert.notEqual(codec.encode({ i: 'intent', g: 'gen', p: 21 }), first);
  });

  it('reveals nothing of what it carries: not a position, a key, an intent or a generation', () => {
    const cursors = [
      codec.encode({ i: 'intent-digest', g: 'generation-9', p: 30 }),
      codec.encodeKey({ i: 'intent-digest', g: 'generation-9', k: 'hh-1031' }),
      codec.encodeKey({ i: 'intent-digest', g: 'generation-9', k: 'k'.repeat(600) }),
    ];
    for (const cursor of cursors) {
      const body = cursor.split('.')[0] as string;
      const bytes = Buffer.from(body, 'base64url');
      for (const text of [bytes.toString('latin1'), body]) {
        assert.doesNotMatch(text, /intent-digest|generation-9|hh-1031|kkkk|"p"|"k"|"i"/, cursor);
      }
      // Nor when deflated: inflating the body (whole, or past a prefix) gives nothing back.
      for (let skip = 0; skip < 3; skip++) {
        assert.doesNotMatch(inflated(bytes.subarray(skip)), /intent-digest|hh-1031|kkkk/, cursor);
      }
    }
    // Pages of one query differ in every character that could count rows.
    const [a, b] = [29, 30].map(
      (p) => codec.encode({ i: 'intent-digest', g: 'generation-9', p }).split('.')[0],
    );
    assert.notEqual(a?.slice(0, 10), b?.slice(0, 10));
  });

  it('keeps verifying after many distinct cursors have been signed', () => {
    const early = codec.encodeKey({ i: 'intent', g: 'gen', k: 'k-0' });
    for (let n = 1; n <= 3000; n++) {
      const cursor = codec.encodeKey({ i: 'intent', g: 'gen', k: `k-${n}` });
      if (n % 500 === 0) assert.equal(codec.decodeKey(cursor, 'intent', 'gen'), `k-${n}`);
    }
    assert.equal(codec.decodeKey(early, 'intent', 'gen'), 'k-0');
    assert.equal(codec.encodeKey({ i: 'intent', g: 'gen', k: 'k-0' }), early);
  });

  it('refuses a cursor of another query, another generation, another secret or a changed body', () => {
    const cursor = codec.encode({ i: 'intent', g: 'gen', p: 20 });
    const stranger = createCursorCodec(Buffer.from('another-secret-0123456789abcdef01234567'));
    const [, tag] = cursor.split('.');
    const forged = `${Buffer.from(JSON.stringify({ i: 'intent', g: 'gen', p: 0 })).toString('base64url')}.${tag}`;
    const cases: [() => unknown, string][] = [
      [() => codec.decode(cursor, 'other', 'gen'), 'pagination.cursor_invalidated'],
      [() => codec.decode(cursor, 'intent', 'reloaded'), 'pagination.cursor_invalidated'],
      [() => stranger.decode(cursor, 'intent', 'gen'), 'pagination.cursor_malformed'],
      [() => codec.decode(forged, 'intent', 'gen'), 'pagination.cursor_malformed'],
      [() => codec.decodeKey(cursor, 'intent', 'gen'), 'pagination.cursor_malformed'],
    ];
    for (const [run, expected] of cases) assert.equal(code(run), expected);
  });

  it('refuses a signature in any spelling but the one it was issued in', () => {
    const cursor = codec.encode({ i: 'intent', g: 'gen', p: 20 });
    const [body, tag] = cursor.split('.') as [string, string];
    // The 16-byte tag is 22 base64url characters: the last one carries 4 unused bits.
    const last = tag.at(-1) as string;
    const sameBits = 'AEIMQUYcgkosw048'.includes(last)
      ? String.fromCharCode(last.charCodeAt(0) + 1)
      : String.fromCharCode(last.charCodeAt(0) - 1);
    for (const altered of [
      `${tag.slice(0, -1)}${sameBits}`,
      `${tag}==`,
      `${tag.slice(0, 5)}!${tag.slice(5)}`,
      `${tag.slice(0, 5)} ${tag.slice(5)}`,
    ]) {
      assert.equal(Buffer.from(altered, 'base64url').equals(Buffer.from(tag, 'base64url')), true, altered);
      assert.equal(
        code(() => codec.decode(`${body}.${altered}`, 'intent', 'gen')),
        'pagination.cursor_malformed',
      );
    }
    assert.equal(codec.decode(`${body}.${tag}`, 'intent', 'gen'), 20);
    // A character whose low byte is that of the one it replaces (U+016F for `o`) is another signature.
    const wide = `${String.fromCharCode(0x100 + tag.charCodeAt(0))}${tag.slice(1)}`;
    assert.equal(
      code(() => codec.decode(`${body}.${wide}`, 'intent', 'gen')),
      'pagination.cursor_malformed',
    );
  });

  it('carries any key a unique index holds within the length it accepts, and refuses an overlong cursor', () => {
    const intent = 'f'.repeat(64);
    const generation = 'e'.repeat(32);
    const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const keys = [
      'k'.repeat(2704),
      'é'.repeat(1352),
      // JSON spells each of these with two to six characters.
      '"'.repeat(2704),
      '\u0001'.repeat(2704),
      scrambled(`${controls}"\\`, 2704),
      scrambled(`${controls}"\\0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_`, 2704),
      // The most bytes of UTF-8 a random key of 2,704 bytes can leave to spell.
      scrambled('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_', 2704),
      // An index stores a long repetitive key compressed.
      'x'.repeat(200_000),
    ];
    for (const key of keys) {
      const cursor = codec.encodeKey({ i: intent, g: generation, k: key });
      assert.ok(cursor.length <= MAX_CURSOR_LENGTH, `${cursor.length}`);
      assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{22}$/);
      assert.equal(codec.decodeKey(cursor, intent, generation), key);
    }
    const overlong = codec.encodeKey({
      i: intent,
      g: generation,
      k: scrambled('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_', MAX_CURSOR_LENGTH),
    });
    assert.ok(overlong.length > MAX_CURSOR_LENGTH);
    assert.equal(
      code(() => codec.decodeKey(overlong, intent, generation)),
      'pagination.cursor_malformed',
    );
  });
});
