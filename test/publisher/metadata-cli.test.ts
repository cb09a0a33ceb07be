// The `ambit metadata` commands: publish progress, validate counts and problems, parse problems, flags.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { captureIo, filesUnder, MANIFEST, useTempDir } from './publisher-fixture.ts';

describe('metadata CLI commands', () => {
  const tmp = useTempDir('ambit-metadata-cli-');

  it('publish prints one progress line per file, then a summary', async () => {
    const io = captureIo();
    const dir = join(tmp, 'site');
    assert.equal(await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', dir], io), 0);
    const files = filesUnder(dir);
    assert.equal(io.lines.length, files.length + 1);
    for (const file of files)
      assert.ok(
        io.lines.some((line) => line.startsWith(`wrote ${file} (`)),
        file,
      );
    assert.equal(io.lines.at(-1), `published ${files.length} files to ${dir}`);
    const foreign = captureIo();
    writeFileSync(join(tmp, 'occupied'), 'x');
    assert.equal(
      await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', join(tmp, 'occupied')], foreign),
      1,
    );
    assert.match(foreign.errors[0] ?? '', /^publish failed: /);
    // A directory that cannot be made (here under a file) is a one-line error, not a stack trace.
    const blocked = captureIo();
    const under = join(tmp, 'occupied', 'site');
    assert.equal(await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', under], blocked), 1);
    assert.deepEqual(blocked.lines, []);
    assert.match(
      blocked.errors.join('\n'),
      /^publish failed: cannot create .*occupied\/site: ENOTDIR: [^\n]*$/,
    );
  });

  it('validate reports the counts and digest, or every problem with its code', async () => {
    const ok = captureIo();
    assert.equal(await main(['metadata', 'validate', '--manifest', MANIFEST], ok), 0);
    assert.match(ok.lines[0] ?? '', /^ok: .*\(3 datasets, 5 entities, 2 evidence offerings, 1 form\)$/);
    assert.match(ok.lines[1] ?? '', /^digest: sha256:[0-9a-f]{64}$/);
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(
      bad,
      readFileSync(MANIFEST, 'utf8')
        .replace('kind: verifier', 'kind: notary')
        .replace('level_of_assurance: substantial', ''),
    );
    const failed = captureIo();
    assert.equal(await main(['metadata', 'validate', '--manifest', bad], failed), 1);
    assert.match(failed.errors[0] ?? '', /bad\.yaml: 1 problem$/);
    assert.match(
      failed.errors[1] ?? '',
      /metadata\.manifest\.validation_failed at manifest\.datasets\.0\.evidence_offerings\.0\.level_of_assurance/,
    );
    const semantic = join(tmp, 'semantic.yaml');
    writeFileSync(semantic, readFileSync(MANIFEST, 'utf8').replace('kind: verifier', 'kind: notary'));
    const notary = captureIo();
    assert.equal(await main(['metadata', 'validate', '--manifest', semantic], notary), 1);
    assert.match(notary.errors.join('\n'), /runtime\.binding\.unsupported_evidence_offering/);
  });

  it('validate says a missing title is required, and what a title may be', async () => {
    const source = readFileSync(MANIFEST, 'utf8');
    const title = '  title:\n    en: Ambit demo registries\n    fr: Registres de démonstration Ambit\n';
    assert.ok(source.includes(title));
    const cases: [edit: string, message: string][] = [
      ['', 'is required'],
      ['  title: 42\n', 'must be a text, or texts by language tag such as { en: ..., fr: ... }'],
      [
        '  title: { en_GB: Registries }\n',
        'must be a text, or texts by language tag such as { en: ..., fr: ... }',
      ],
    ];
    for (const [edit, message] of cases) {
      const file = join(tmp, 'title.yaml');
      writeFileSync(file, source.replace(title, edit));
      const io = captureIo();
      assert.equal(await main(['metadata', 'validate', '--manifest', file], io), 1, edit);
      assert.deepEqual(
        io.errors,
        [`${file}: 1 problem`, `  metadata.manifest.validation_failed at manifest.catalog.title: ${message}`],
        edit,
      );
    }
  });

  it('validate refuses a catalog base_url with a query, a fragment or credentials', async () => {
    const source = readFileSync(MANIFEST, 'utf8');
    for (const baseUrl of [
      'http://127.0.0.1:4242/?lang=en',
      'http://127.0.0.1:4242/#top',
      'http://me:pw@127.0.0.1:4242',
    ]) {
      const file = join(tmp, 'base-url.yaml');
      writeFileSync(file, source.replace('base_url: http://127.0.0.1:4242', `base_url: ${baseUrl}`));
      const io = captureIo();
      assert.equal(await main(['metadata', 'validate', '--manifest', file], io), 1, baseUrl);
      assert.match(
        io.errors.join('\n'),
        /at manifest\.catalog\.base_url: must have no query, fragment or user name/,
        baseUrl,
      );
    }
  });

  it('validate and publish report a broken alias as a located parse problem, without a stack trace', async () => {
    const broken = join(tmp, 'alias.yaml');
    writeFileSync(broken, 'schema_version: registry-manifest/v1\ncatalog: *nope\n');
    for (const args of [
      ['metadata', 'validate', '--manifest', broken],
      ['metadata', 'publish', '--manifest', broken, '--out', join(tmp, 'never')],
    ]) {
      const io = captureIo();
      assert.equal(await main(args, io), 1, args.join(' '));
      assert.deepEqual(io.errors, [
        `${broken}: 1 problem`,
        '  metadata.manifest.parse_failed at manifest line 2: unresolved alias: its anchor is not set before it (the name is not shown)',
      ]);
    }
  });

  it('each command insists on its flags', async () => {
    for (const args of [
      ['metadata', 'publish', '--manifest', MANIFEST],
      ['metadata', 'publish', '--manifest', MANIFEST, '--out', tmp, '--base-url', 'ftp://x'],
      ['metadata', 'validate'],
      ['metadata', 'serve'],
      ['metadata', 'serve', '--dir', tmp, '--bind', 'nope'],
      ['metadata', 'validate', '--manifest', MANIFEST, '--extra'],
    ]) {
      assert.equal(await main(args, captureIo()), 2, args.join(' '));
    }
    // --base-url takes what catalog.base_url takes: every link and IRI of the publication is built on it.
    for (const baseUrl of [
      'http://[::1',
      'https://x.example/a"<b>',
      'https://x.example/{id}',
      'https://x.example/a|b',
      // Links are the base URL, then a path: a query or a fragment would swallow the path, and credentials would
      // be published in every file.
      'https://x.example/registries?lang=en',
      'https://x.example/registries#top',
      'https://user:secret@x.example/registries',
    ]) {
      const out = join(tmp, 'never-written');
      const io = captureIo();
      assert.equal(
        await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', out, '--base-url', baseUrl], io),
        2,
        baseUrl,
      );
      assert.deepEqual(io.lines, [], baseUrl);
      assert.match(io.errors.join('\n'), /^--base-url must be an absolute http\(s\) URL/, baseUrl);
      assert.equal(existsSync(out), false, baseUrl);
    }
    const noIndex = captureIo();
    assert.equal(await main(['metadata', 'serve', '--dir', tmp], noIndex), 1);
    assert.match(noIndex.errors[0] ?? '', /no metadata\/index\.json/);
  });
});
