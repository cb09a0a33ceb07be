// Asserts that a response is an RFC 9457 problem with the expected status and stable code.
import assert from 'node:assert/strict';
import type { Response } from 'light-my-request';

export function assertProblem(
  response: Response,
  status: number,
  code: string,
  detail?: string | RegExp,
): void {
  const context = `${response.statusCode} ${response.body.slice(0, 300)}`;
  assert.equal(response.statusCode, status, context);
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/, context);
  const body = response.json();
  assert.equal(body.code, code, context);
  assert.equal(body.status, status, context);
  assert.equal(body.type, `https://ambit.dev/problems/${code.replaceAll('.', '/')}`);
  assert.equal(typeof body.request_id, 'string');
  if (typeof detail === 'string') assert.equal(body.detail, detail);
  else if (detail) assert.match(body.detail, detail);
  assert.equal(response.headers.etag, undefined, 'an error never carries an ETag');
}
