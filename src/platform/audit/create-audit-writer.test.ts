// createAuditWriter on a JSONL file: chained envelopes, resuming after a restart, a bad tail or path refused.
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';

import { verifyAuditFile } from './audit-cli.ts';
import {
  fileOfTwoRecords,
  isConfigError,
  makeTempDir,
  OTHER_SECRET,
  readEnvelopes,
  sampleRecord,
  sequenceRandom,
  TEST_SECRET,
  writerOptions,
} from './audit-test-support.ts';
import { createAuditWriter } from './create-audit-writer.ts';

const options = writerOptions;

describe('createAuditWriter (jsonl)', () => {
  it('writes one chained envelope line per record', async (t) => {
    const path = join(makeTempDir(t), 'nested', 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    assert.equal(writer.lastHash, null);
    for (let n = 1; n <= 3; n++) writer.write(sampleRecord(n));
    await writer.close();
    const envelopes = readEnvelopes(path);
    assert.equal(envelopes.length, 3);
    assert.equal(envelopes[0]?.prev_hash, null);
    assert.equal(envelopes[1]?.prev_hash, envelopes[0]?.record_hash);
    assert.deepEqual(envelopes[2]?.record, sampleRecord(3));
    assert.equal(writer.lastHash, envelopes[2]?.record_hash);
    assert.deepEqual(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }), {
      ok: true,
      count: 3,
      lastHash: writer.lastHash,
      files: [path],
      startsFrom: null,
    });
  });

  it('resumes the chain from the last record after a restart', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const first = createAuditWriter(options({ path }));
    first.write(sampleRecord(1));
    first.write(sampleRecord(2));
    await first.close();
    const lastOld = first.lastHash;

    const second = createAuditWriter(options({ path, random: sequenceRandom() }));
    assert.equal(second.lastHash, lastOld);
    second.write(sampleRecord(3));
    await second.close();
    const envelopes = readEnvelopes(path);
    assert.equal(envelopes[2]?.prev_hash, lastOld);
    assert.equal(verifyAuditFile(path, TEST_SECRET, { startPrevHash: null }).ok, true);
  });

  it('resumes from a last line longer than the tail window', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const first = createAuditWriter(options({ path }));
    first.write(sampleRecord(1));
    first.write({ ...sampleRecord(2), purpose: 'p'.repeat(50_000) });
    await first.close();
    const second = createAuditWriter(options({ path }));
    assert.equal(second.lastHash, first.lastHash);
    await second.close();
  });

  it('refuses to start on a tampered, truncated or foreign tail instead of starting a new chain', async (t) => {
    const { path, original } = await fileOfTwoRecords(t);

    writeFileSync(path, original.replace('"req-2"', '"req-9"'));
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    // A record cut short and then ended with a newline is no partial write: it is refused.
    writeFileSync(path, `${original.slice(0, original.length - 10)}\n`);
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    writeFileSync(path, original);
    appendFileSync(path, 'garbage\n');
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    writeFileSync(path, original);
    assert.throws(
      () => createAuditWriter(options({ path, secret: OTHER_SECRET })),
      isConfigError('audit.chain_invalid'),
    );
    // Nothing was appended by the refused starts.
    assert.equal(readFileSync(path, 'utf8'), original);
  });

  it('refuses to start on a last line that is not valid UTF-8 or nests too deeply, as a config error', async (t) => {
    const path = join(makeTempDir(t), 'audit.jsonl');
    const writer = createAuditWriter(options({ path }));
    writer.write(sampleRecord(1));
    writer.write({ purpose: 'caf\ufffd' });
    await writer.close();
    const bytes = readFileSync(path);
    const at = bytes.indexOf(Buffer.from('\ufffd'));
    // U+FFFD's three bytes replaced by one byte that is not UTF-8: the text as decoded is the same, the file is not.
    writeFileSync(path, Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at + 3)]));
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));

    const [first = '', last = ''] = bytes.toString('utf8').split('\n');
    const deep = last.replace(
      /"record":\{/,
      `"record":{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)},`,
    );
    writeFileSync(path, `${first}\n${deep}\n`);
    assert.throws(() => createAuditWriter(options({ path })), isConfigError('audit.chain_invalid'));
  });

  it('needs a path for the file and jsonl sinks', () => {
    assert.throws(() => createAuditWriter(options({ sink: 'jsonl' })), isConfigError('audit.path_required'));
    assert.throws(
      () => createAuditWriter(options({ sink: 'file', path: '' })),
      isConfigError('audit.path_required'),
    );
  });

  it('reports a path that cannot be opened as a config error', (t) => {
    const dir = makeTempDir(t);
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    assert.throws(
      () => createAuditWriter(options({ path: join(blocker, 'audit.jsonl') })),
      isConfigError('audit.sink_unavailable'),
    );
  });
});
