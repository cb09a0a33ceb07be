import assert from 'node:assert/strict';
import { test } from 'node:test';
import { capturedLog } from '../../test/helpers/captured-log.ts';

test('an error is logged without the headers, parameters and causes it carries', () => {
  const { lines, logger } = capturedLog();
  const cause = new Error('connect to postgres://ambit:s3cr3t-pw@db/registry refused');
  const error = Object.assign(new Error('request failed', { cause }), {
    code: 'E_FOREIGN',
    config: { headers: { authorization: 'Bearer tok-SECRET-123' } },
    request: { headers: { 'x-api-key': 'key-SECRET-456' } },
    input: 'postgres://ambit:s3cr3t-pw@db/registry',
  });
  logger.error({ err: error }, 'unhandled error');
  const text = lines.join('');
  for (const secret of ['s3cr3t-pw', 'tok-SECRET-123', 'key-SECRET-456'])
    assert.ok(!text.includes(secret), secret);
  const { err } = JSON.parse(text) as { err: Record<string, unknown> };
  assert.equal(err.type, 'Error');
  assert.equal(err.code, 'E_FOREIGN');
  assert.equal(err.message, 'request failed');
  assert.match(String(err.stack), /^Error: request failed\n/);
});

test('a thrown value that is not an Error is logged by its type only', () => {
  const { lines, logger } = capturedLog();
  logger.error({ err: 'postgres://ambit:s3cr3t-pw@db/registry' }, 'unhandled error');
  assert.deepEqual(JSON.parse(lines.join('')).err, { type: 'string' });
});
