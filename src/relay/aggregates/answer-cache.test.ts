import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Generation } from '../store/generation.ts';
import {
  ANSWER_CACHE_LIMITS,
  type CachedAnswer,
  cachedAnswer,
  type KnownRequest,
  knownRequest,
  REQUEST_CACHE_LIMITS,
  rememberAnswer,
  rememberRequest,
} from './answer-cache.ts';

/** An answer whose body is `bytes` long (a zero-filled Buffer: no text to build). */
function answerOf(bytes: number): CachedAnswer {
  return { body: Buffer.alloc(bytes), headers: {}, rowCount: 1, suppressedGroups: 0 };
}

/** Whether the answer is kept (a boolean: a failed assertion would otherwise print the whole body). */
const held = (generation: Generation, etag: string) => cachedAnswer(generation, etag) !== undefined;

describe('aggregate answer cache', () => {
  it('keeps recent answers, dropping the least recently used beyond the size budget', () => {
    const generation = {} as Generation;
    const third = Math.floor(ANSWER_CACHE_LIMITS.bytes / 3) + 1;
    rememberAnswer(generation, 'a', answerOf(third));
    rememberAnswer(generation, 'b', answerOf(third));
    // Reading `a` makes `b` the least recently used.
    assert.equal(held(generation, 'a'), true);
    rememberAnswer(generation, 'c', answerOf(third));
    assert.equal(held(generation, 'b'), false, 'b went: three would pass the budget');
    assert.equal(held(generation, 'a'), true);
    assert.equal(held(generation, 'c'), true);
  });

  it('does not keep an answer larger than the whole budget, nor drop the others for it', () => {
    const generation = {} as Generation;
    rememberAnswer(generation, 'small', answerOf(10));
    rememberAnswer(generation, 'huge', answerOf(ANSWER_CACHE_LIMITS.bytes + 1));
    assert.equal(held(generation, 'huge'), false);
    assert.equal(held(generation, 'small'), true);
  });

  it('keeps at most the answer count limit, whatever their size', () => {
    const generation = {} as Generation;
    for (let i = 0; i <= ANSWER_CACHE_LIMITS.answers; i++) rememberAnswer(generation, `e${i}`, answerOf(1));
    assert.equal(held(generation, 'e0'), false);
    assert.equal(held(generation, `e${ANSWER_CACHE_LIMITS.answers}`), true);
    assert.equal(held(generation, 'e1'), true);
  });

  it('keeps parsed requests within a budget of key characters, however few they are', () => {
    const generation = {} as Generation;
    const known = {} as KnownRequest;
    // Keys as long as a query with a 60 KiB Accept header makes them.
    const accept = 'x'.repeat(60 * 1024);
    const count = Math.ceil(REQUEST_CACHE_LIMITS.keyChars / accept.length) + 1;
    assert.ok(count < REQUEST_CACHE_LIMITS.requests);
    for (let i = 0; i < count; i++) rememberRequest(generation, `${i}\u0000${accept}`, known);
    assert.equal(knownRequest(generation, `0\u0000${accept}`), undefined, 'the first went');
    assert.equal(knownRequest(generation, `${count - 1}\u0000${accept}`), known);
  });
});
