import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { PACKAGE_ROOT } from '../platform/package-root.ts';
import { DEMO_PERSONAS, ensureDemoKeys, personaVar, publishKeysFile } from './demo-keys.ts';

describe('demo keys file', () => {
  it('is created readable by its owner only, and reused with the same keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-keys-'));
    try {
      const path = join(dir, 'var', 'demo-keys.env');
      const first = ensureDemoKeys(path);
      assert.equal(first.created, true);
      assert.equal(statSync(path).mode & 0o777, 0o600);
      const again = ensureDemoKeys(path);
      assert.equal(again.created, false);
      assert.equal(again.env[personaVar('caseworker', 'KEY')], first.env[personaVar('caseworker', 'KEY')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('never replaces a keys file another start wrote meanwhile: its keys are the ones in use', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-keys-'));
    try {
      const path = join(dir, 'demo-keys.env');
      assert.equal(publishKeysFile(path, 'FIRST=1\n'), true);
      assert.equal(publishKeysFile(path, 'SECOND=2\n'), false);
      assert.equal(readFileSync(path, 'utf8'), 'FIRST=1\n');
      assert.equal(statSync(path).mode & 0o777, 0o600);
      // Nothing is left beside it.
      assert.deepEqual(readdirSync(dir), ['demo-keys.env']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('narrows a file found readable by others to 0600 before reading it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-demo-keys-'));
    try {
      const path = join(dir, 'demo-keys.env');
      writeFileSync(path, `${personaVar('caseworker', 'KEY')}=abc\n`);
      chmodSync(path, 0o644);
      const { env, created } = ensureDemoKeys(path);
      assert.equal(created, false);
      assert.equal(env[personaVar('caseworker', 'KEY')], 'abc');
      assert.equal(statSync(path).mode & 0o777, 0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('describes the operator by the admin listeners the demo actually starts', () => {
    const server = (file: string) =>
      (parse(readFileSync(join(PACKAGE_ROOT, 'demo', file), 'utf8')) as { server: { admin_bind?: string } })
        .server;
    // The banner tells a new user where the operator key works: only the verifier has an admin listener.
    assert.equal(server('relay.yaml').admin_bind, undefined);
    assert.ok(server('verifier.yaml').admin_bind);
    const operator = DEMO_PERSONAS.find((persona) => persona.id === 'operator');
    assert.match(operator?.can ?? '', /^the verifier's admin listener; the demo relay starts none$/);
  });

  it('are described in plain clauses: the banner prints each inside parentheses of its own', () => {
    for (const persona of DEMO_PERSONAS) assert.doesNotMatch(persona.can, /[()]/, persona.id);
  });
});
