// The compiled build the CLI runs (bin/build.js): complete, plain JavaScript, cached, safe to build concurrently.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
// @ts-expect-error: bin/build.js is plain JavaScript without declarations.
import { BUILD_ENV, buildFailureReason, ensureBuild, inheritedBuild } from '../../bin/build.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function modulesUnder(dir: string, suffix: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...modulesUnder(path, suffix));
    else if (entry.name.endsWith(suffix)) found.push(path);
  }
  return found;
}

describe('compiled build', () => {
  it('has one JavaScript module per source module, importing .js siblings only', async () => {
    const dir: string = await ensureBuild();
    const sources = modulesUnder(join(ROOT, 'src'), '.ts')
      .filter((path) => !path.endsWith('.test.ts'))
      .map((path) => relative(join(ROOT, 'src'), path).replace(/\.ts$/, '.js'))
      .sort();
    const built = modulesUnder(dir, '.js')
      .map((path) => relative(dir, path))
      .sort();
    assert.deepEqual(built, sources);
    for (const file of built) {
      const text = readFileSync(join(dir, file), 'utf8');
      assert.doesNotMatch(text, /from\s+["']\.{1,2}\/[^"']*\.ts["']/, `${file} imports a .ts module`);
      assert.doesNotMatch(text, /import\(["']\.{1,2}\/[^"']*\.ts["']\)/, `${file} imports a .ts module`);
    }
  });

  it('is reused while the sources are unchanged', async () => {
    assert.equal(await ensureBuild(), await ensureBuild());
  });

  it("gives a relay's cluster workers the build their primary runs, even after the sources changed", async () => {
    const dir: string = await ensureBuild();
    // Named to the processes this one forks.
    assert.equal(process.env[BUILD_ENV], dir);
    // A cluster worker (NODE_UNIQUE_ID) takes it while it is complete, whatever the sources hold now.
    assert.equal(inheritedBuild({ NODE_UNIQUE_ID: '1', [BUILD_ENV]: dir }), dir);
    // Any other process builds from the sources as they are.
    assert.equal(inheritedBuild({ [BUILD_ENV]: dir }), undefined);
    const elsewhere = mkdtempSync(join(tmpdir(), 'ambit-build-'));
    try {
      writeFileSync(join(elsewhere, '.complete'), 'x');
      assert.equal(
        inheritedBuild({ NODE_UNIQUE_ID: '1', [BUILD_ENV]: elsewhere }),
        undefined,
        'outside the cache',
      );
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
    const missing = join(dir, '..', 'build-0000000000000000');
    assert.equal(inheritedBuild({ NODE_UNIQUE_ID: '1', [BUILD_ENV]: missing }), undefined, 'a pruned build');
  });

  it('is what the CLI runs, and processes starting together all get a complete build', async () => {
    const runs = Array.from(
      { length: 3 },
      () =>
        new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
          const child = spawn(process.execPath, ['bin/ambit.js', '--help'], { cwd: ROOT });
          let out = '';
          let err = '';
          child.stdout.on('data', (chunk) => {
            out += chunk;
          });
          child.stderr.on('data', (chunk) => {
            err += chunk;
          });
          child.on('close', (code) => resolve({ code, out, err }));
        }),
    );
    for (const result of await Promise.all(runs)) {
      assert.equal(result.code, 0, result.err);
      assert.match(result.out, /relay serve/);
      // A fallback to the sources announces itself on stderr.
      assert.equal(result.err, '');
    }
  });

  it('falls back to the sources when asked to', () => {
    const result = spawnSync(process.execPath, ['bin/ambit.js', '--help'], {
      cwd: ROOT,
      env: { ...process.env, AMBIT_FROM_SOURCE: '1' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /relay serve/);
  });

  it('finds the package folder from inside the build, for the files modules read at run time', async () => {
    const dir: string = await ensureBuild();
    const built = await import(pathToFileURL(join(dir, 'platform', 'package-root.js')).href);
    assert.equal(join(built.PACKAGE_ROOT, '/'), join(ROOT, '/'));
    assert.equal(built.PACKAGE_INFO.name, 'ambit');
  });
});

describe('a build that cannot be made', () => {
  it('is said in one line, however many modules failed', async () => {
    const esbuild = await import('esbuild');
    const dir = mkdtempSync(join(tmpdir(), 'ambit-build-fail-'));
    try {
      const broken = ['a.ts', 'b.ts', 'c.ts'].map((name) => {
        writeFileSync(join(dir, name), 'export const = ;\n');
        return join(dir, name);
      });
      const failure = await esbuild
        .build({ entryPoints: broken, outdir: join(dir, 'out'), logLevel: 'silent' })
        .then(
          () => assert.fail('the build was expected to fail'),
          (error: unknown) => error,
        );
      assert.match(String((failure as Error).message), /\n/, 'esbuild lists each error on its own line');
      const reason: string = buildFailureReason(failure);
      assert.doesNotMatch(reason, /\n/);
      assert.match(reason, /^Expected identifier but found "=" \(and 2 more like it\)$/);
      assert.equal(
        buildFailureReason(new Error('EACCES: permission denied\nmore')),
        'EACCES: permission denied',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
