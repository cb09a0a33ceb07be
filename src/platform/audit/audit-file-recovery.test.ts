// Starting on an audit file another process left behind: a record cut short by a killed process is set aside and
// the chain resumes; a file another running process writes is refused.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { verifyAuditChain } from './audit-envelope.ts';
import {
  fileOfTwoRecords,
  isConfigError,
  makeTempDir,
  writerOptions as options,
  readEnvelopes,
  recordingLogger,
  sampleRecord,
  TEST_SECRET,
} from './audit-test-support.ts';
import { createAuditWriter } from './create-audit-writer.ts';

/** A child process holding an audit file's lock until killed. */
const HOLD_LOCK = `
import { lockAuditFile } from ${JSON.stringify(new URL('./audit-file-lock.ts', import.meta.url).pathname)};
lockAuditFile(process.argv[1]);
process.stdout.write('locked\\n');
setInterval(() => {}, 1000);
`;

describe('createAuditWriter on a file left behind', () => {
  it('sets a record cut short by a killed process aside and resumes from the last whole record', async (t) => {
    const { dir, path, original } = await fileOfTwoRecords(t);
    const cut = original.length - 10;
    truncateSync(path, cut);
    const secondStart = original.lastIndexOf('\n', original.length - 2) + 1;
    const { logger, calls } = recordingLogger();
    const resumed = createAuditWriter(options({ path, logger }));
    resumed.write(sampleRecord(3));
    await resumed.close();
    const envelopes = readEnvelopes(path);
    assert.deepEqual(
      envelopes.map((envelope) => (envelope.record as { request_id: string }).request_id),
      ['req-1', 'req-3'],
    );
    const lines = readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
    assert.equal(verifyAuditChain(lines, TEST_SECRET).ok, true);
    // The fragment is kept, byte for byte, beside the file, and the start says so.
    const aside = readdirSync(dir).filter((name) => name.startsWith('audit.jsonl.torn-'));
    assert.equal(aside.length, 1);
    assert.equal(readFileSync(join(dir, aside[0] as string), 'utf8'), original.slice(secondStart, cut));
    assert.ok(calls.some((call) => call.level === 'warn' && /partial record/.test(call.message)));
  });

  it('sets aside a file holding nothing but a cut record, and starts its chain anew', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    writeFileSync(path, '{"v":1,"record":{"req');
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    await writer.close();
    const envelopes = readEnvelopes(path);
    assert.equal(envelopes.length, 1);
    assert.equal(envelopes[0]?.prev_hash, null);
  });

  it('refuses a second writer of the same file in another process while the first runs, and not after', async (t) => {
    const dir = makeTempDir(t);
    const path = join(dir, 'audit.jsonl');
    const holder = spawn(process.execPath, ['--import', 'tsx', '-e', HOLD_LOCK, path], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    t.after(() => holder.kill('SIGKILL'));
    await new Promise<void>((resolve) => holder.stdout.once('data', () => resolve()));
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.sink_in_use'));
    // Killed without releasing: its lock is stale, and the next start takes it over.
    holder.kill('SIGKILL');
    await new Promise((resolve) => holder.once('exit', resolve));
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    await writer.close();
    assert.equal(readEnvelopes(path).length, 1);
    assert.equal(existsSync(`${path}.lock`), false, 'released on close');
  });
});
