// Config files, env files and manifests are read only when they are regular files of bounded size.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfigFile } from '../../src/platform/config/load-config-file.ts';
import {
  MAX_CONFIG_FILE_BYTES,
  MAX_ENV_FILE_BYTES,
  readBoundedFile,
} from '../../src/platform/config/read-bounded-file.ts';
import { readEnvFile } from '../../src/platform/config/read-env-file.ts';
import { refusalIssues } from '../../src/platform/config/refusal-issues.ts';
import { loadManifestFile } from '../../src/relay/metadata/load-manifest.ts';

const dir = mkdtempSync(join(tmpdir(), 'ambit-bounded-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const POSIX = process.platform !== 'win32';

const issuesOf = refusalIssues;

function fifo(name: string): string {
  const path = join(dir, name);
  execFileSync('mkfifo', [path]);
  return path;
}

describe('readBoundedFile', () => {
  it('reads a regular file up to the limit, byte for byte', () => {
    const path = join(dir, 'exact.yaml');
    writeFileSync(path, Buffer.alloc(200_000, 0x61));
    const read = readBoundedFile(path, 200_000);
    assert.ok(read.ok);
    assert.equal(read.bytes.length, 200_000);
    assert.ok(read.bytes.every((byte) => byte === 0x61));
  });

  it('refuses a file one byte over the limit', () => {
    const path = join(dir, 'over.yaml');
    writeFileSync(path, Buffer.alloc(200_001, 0x61));
    const read = readBoundedFile(path, 200_000);
    assert.ok(!read.ok);
    assert.match(read.reason, /larger than/);
  });

  it('refuses a directory, and reports a missing file with its errno', () => {
    const directory = readBoundedFile(dir, MAX_CONFIG_FILE_BYTES);
    assert.ok(!directory.ok);
    assert.match(directory.reason, /not a regular file/);
    const missing = readBoundedFile(join(dir, 'none.yaml'), MAX_CONFIG_FILE_BYTES);
    assert.ok(!missing.ok);
    assert.equal(missing.errno, 'ENOENT');
  });

  it('refuses a device and a FIFO without waiting on them', { skip: !POSIX }, () => {
    for (const path of ['/dev/zero', fifo('pipe.yaml')]) {
      const read = readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
      assert.ok(!read.ok, path);
      assert.match(read.reason, /not a regular file/);
    }
  });

  it('reads a file that reports size 0 until its end', { skip: process.platform !== 'linux' }, () => {
    const read = readBoundedFile('/proc/self/status', MAX_CONFIG_FILE_BYTES);
    assert.ok(read.ok);
    assert.match(read.bytes.toString('utf8'), /^Name:/);
  });
});

describe('files that are not regular or too large', () => {
  it('are refused as a config file', { skip: !POSIX }, () => {
    const large = join(dir, 'large.yaml');
    writeFileSync(large, `a: ${'x'.repeat(MAX_CONFIG_FILE_BYTES)}\n`);
    for (const [path, reason] of [
      ['/dev/zero', /not a regular file/],
      [fifo('config.yaml'), /not a regular file/],
      [large, /larger than 4 MiB/],
    ] as const) {
      const issues = issuesOf(() => loadConfigFile(path, {}));
      assert.deepEqual(
        issues.map((issue) => `${issue.code} @ ${issue.path}`),
        ['config.file_unreadable @ '],
      );
      assert.match(issues[0]?.message ?? '', reason);
      assert.ok(issues[0]?.message.includes(path));
    }
  });

  it('are refused as an env file', { skip: !POSIX }, () => {
    const large = join(dir, 'large.env');
    writeFileSync(large, `A=${'x'.repeat(MAX_ENV_FILE_BYTES)}\n`);
    for (const [path, reason] of [
      ['/dev/zero', /not a regular file/],
      [fifo('relay.env'), /not a regular file/],
      [large, /larger than 1 MiB/],
    ] as const) {
      const issues = issuesOf(() => readEnvFile(path));
      assert.deepEqual(
        issues.map((issue) => issue.code),
        ['config.env_file_unreadable'],
      );
      assert.match(issues[0]?.message ?? '', reason);
    }
  });

  it('are refused as a metadata manifest, at the config key that named it', { skip: !POSIX }, () => {
    const large = join(dir, 'large.metadata.yaml');
    writeFileSync(large, `# ${'x'.repeat(MAX_CONFIG_FILE_BYTES)}\n`);
    for (const [path, reason] of [
      ['/dev/zero', /is not a regular file/],
      [fifo('relay.metadata.yaml'), /is not a regular file/],
      [large, /is larger than 4 MiB/],
    ] as const) {
      const issues = issuesOf(() => loadManifestFile(path, { sourcePath: 'metadata.source.path' }));
      assert.deepEqual(
        issues.map((issue) => `${issue.code} @ ${issue.path}`),
        ['metadata.manifest.file_not_found @ metadata.source.path'],
      );
      assert.match(issues[0]?.message ?? '', reason);
    }
  });
});
