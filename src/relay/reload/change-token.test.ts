import assert from 'node:assert/strict';
import { mkdtempSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FILE_SETTLE_MS, fileChangeToken } from './change-token.ts';

describe('fileChangeToken', () => {
  const setup = (t: { after(fn: () => void): void }) => {
    const dir = mkdtempSync(join(tmpdir(), 'ambit-change-token-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it('changes when a file is rewritten in place with the same size and its old modification time restored', async (t) => {
    const path = join(setup(t), 'people.csv');
    writeFileSync(path, 'id,name\n1,ann\n');
    const old = new Date(Date.UTC(2026, 0, 1));
    utimesSync(path, old, old);
    const source = fileChangeToken(path);
    const before = await source.changeToken();
    // File times advance with the kernel's clock tick (a few ms): the rewrite must come in a later tick than the
    // token's, as any real restore does.
    await new Promise((resolve) => setTimeout(resolve, 30));
    // As `cp -p` or a backup restore does: other bytes, same length, the old timestamps put back.
    writeFileSync(path, 'id,name\n1,bob\n');
    utimesSync(path, old, old);
    assert.equal(statSync(path).mtimeMs, old.getTime());
    assert.notEqual(await source.changeToken(), before);
  });

  it('changes when another file is moved into place, and holds still otherwise', async (t) => {
    const dir = setup(t);
    const path = join(dir, 'people.csv');
    writeFileSync(path, 'id\n1\n');
    const source = fileChangeToken(path);
    const first = await source.changeToken();
    assert.equal(await source.changeToken(), first);
    writeFileSync(join(dir, 'next.csv'), 'id\n2\n');
    renameSync(join(dir, 'next.csv'), path);
    assert.notEqual(await source.changeToken(), first);
  });

  it('settles on the modification time: a file just written is not, one whose copy kept an old time is', async (t) => {
    const path = join(setup(t), 'people.csv');
    writeFileSync(path, 'id\n1\n');
    let clock = Date.now();
    const source = fileChangeToken(path, () => clock);
    assert.equal(
      source.settling?.(await source.changeToken()),
      true,
      'just written: may still be being written',
    );
    clock += FILE_SETTLE_MS + 1_000;
    assert.equal(source.settling?.(await source.changeToken()), false);
    // A copy that keeps the source's times sets them once its bytes are written.
    const old = new Date(Date.UTC(2026, 0, 1));
    utimesSync(path, old, old);
    assert.equal(source.settling?.(await source.changeToken()), false);
  });
});
