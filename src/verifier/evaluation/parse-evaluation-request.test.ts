import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProblem, type Problem } from '../../platform/problem/problem.ts';
import { parseEvaluationRequest } from './parse-evaluation-request.ts';

function rejected(body: unknown): Problem {
  try {
    parseEvaluationRequest(body);
  } catch (error) {
    if (isProblem(error)) return error;
    throw error;
  }
  assert.fail('the body was accepted');
}

/** Every text of the problem a caller reads: its detail, and each error's path and message. */
function texts(problem: Problem): string[] {
  const errors = problem.extras.errors as { path: string; message: string }[];
  return [problem.detail, ...errors.flatMap((error) => [error.path, error.message])];
}

describe('parseEvaluationRequest refusals', () => {
  const target = { type: 'person', id: 'x' };

  it('names unknown members in a problem of bounded size, however many the body holds', () => {
    const unknown = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`member_${i}`, 0]));
    const problem = rejected({ target, claims: ['person_alive'], ...unknown });
    assert.equal(problem.code, 'request.invalid');
    assert.match(problem.detail, /"member_0"/);
    assert.match(problem.detail, /and 4997 more/);
    for (const text of texts(problem)) assert.ok(text.length <= 300, `${text.length} characters`);
  });

  it('bounds a long member name or record key it echoes', () => {
    const long = 'k'.repeat(100_000);
    for (const body of [
      { target, claims: ['person_alive'], [long]: 0 },
      { target: { ...target, attributes: { [long]: 1 } }, claims: ['person_alive'] },
    ]) {
      const problem = rejected(body);
      assert.equal(problem.code, 'request.invalid');
      assert.match(problem.detail, /kkkk/);
      for (const text of texts(problem)) assert.ok(text.length <= 300, `${text.length} characters`);
    }
  });

  it('clips a name between characters, never inside a surrogate pair', () => {
    for (const name of ['\u{1F600}'.repeat(100), `x${'\u{1F600}'.repeat(100)}`]) {
      const problem = rejected({ target, claims: ['person_alive'], [name]: 0 });
      for (const text of texts(problem)) assert.ok(!/\p{Cs}/u.test(text), text);
    }
  });

  it('refuses more than 32 target attributes by their number alone, before looking at any of them', () => {
    // A body within its size limit holds tens of thousands of members: each one checked before their number was
    // refused held the server for seconds.
    const attributes = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`bad key ${i}`, [i]]));
    for (const body of [
      { target: { ...target, attributes }, claims: ['person_alive'] },
      { target: { type: 'person', attributes }, claims: ['person_alive'] },
    ]) {
      const problem = rejected(body);
      assert.equal(problem.code, 'request.invalid');
      assert.deepEqual(problem.extras.errors, [
        { path: 'target.attributes', message: 'Too big: expected at most 32 attributes' },
      ]);
    }
    const read: string[] = [];
    const watched = new Proxy(attributes, {
      get: (object, key) => {
        read.push(String(key));
        return Reflect.get(object, key);
      },
    });
    rejected({ target: { ...target, attributes: watched }, claims: ['person_alive'] });
    assert.deepEqual(read, [], 'no attribute value is read');
  });

  it('says what a claim reference must be when it is neither an id nor {id, version} of text', () => {
    for (const claim of [{ id: 'person_alive', version: 1 }, { version: '1' }, 5]) {
      const problem = rejected({ target, claims: [claim] });
      assert.equal(problem.code, 'request.invalid');
      assert.equal(
        problem.detail,
        '`claims.0`: Invalid input: expected a claim id, or {"id": ..., "version": ...} with both as text',
      );
    }
  });

  it('keeps short problems as they are', () => {
    const problem = rejected({ target, claims: ['person_alive'], extra: 1 });
    assert.equal(problem.detail, 'Unrecognized key: "extra"');
    assert.deepEqual(problem.extras.errors, [{ path: '', message: 'Unrecognized key: "extra"' }]);
  });
});
