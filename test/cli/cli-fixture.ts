// Shared by the `ambit` CLI tests: config folders, the secrets the valid configs read, a scratch folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { fingerprintOf } from '../../src/platform/auth/api-key.ts';
import { ROOT } from '../helpers/run-cli.ts';

export const VALID = join(ROOT, 'test/config/valid');
export const INVALID = join(ROOT, 'test/config/invalid');
export const AUDIT_SECRET = 'audit-secret-for-cli-tests-0123456789abc';
export const READER_ENV = { READER_HASH: fingerprintOf('reader-key'), AUDIT_SECRET };

/** A fresh temporary folder for the tests of the file, removed after them. */
export function useScratchDir(): { readonly dir: string } {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'ambit-cli-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
  };
}
