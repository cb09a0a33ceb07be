// `ambit metadata publish` writing safely: whole replacements, foreign files kept, optional RDF, bad input.
import assert from 'node:assert/strict';
import fs, {
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../src/cli/main.ts';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { PublishError, writePublication } from '../../src/publisher/write-publication.ts';
import { runToEnd } from '../helpers/run-to-end.ts';
import { captureIo, filesUnder, MANIFEST, useTempDir } from './publisher-fixture.ts';

describe('ambit metadata publish', () => {
  const tmp = useTempDir('ambit-publish-');
  const out = (name: string) => join(tmp, name);

  it('replaces a previous publication whole, keeps foreign files beside it, and never writes into other directories', () => {
    const dir = out('again');
    publishMetadata(MANIFEST, dir);
    writeFileSync(join(dir, 'metadata', 'stale.json'), '{}');
    writeFileSync(join(dir, 'README.txt'), 'hosting notes');
    publishMetadata(MANIFEST, dir);
    assert.ok(!filesUnder(dir).includes('metadata/stale.json'));
    assert.ok(filesUnder(dir).includes('README.txt'));
    const foreign = out('foreign');
    mkdirSync(foreign);
    writeFileSync(join(foreign, 'important.txt'), 'keep me');
    assert.throws(() => publishMetadata(MANIFEST, foreign), PublishError);
    assert.deepEqual(filesUnder(foreign), ['important.txt']);
    writeFileSync(out('plain-file'), 'x');
    assert.throws(() => publishMetadata(MANIFEST, out('plain-file')), PublishError);
  });

  it('leaves the previous publication whole when a write fails, and creates nothing in a new directory', () => {
    const dir = out('kept');
    const artefacts = publishMetadata(MANIFEST, dir);
    const before = filesUnder(dir).map((file) => [file, readFileSync(join(dir, file), 'utf8')]);
    // A write failing part-way, as on a full disk.
    let written = 0;
    const diskFull = () => {
      written++;
      if (written === 3)
        throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    assert.throws(() => writePublication(dir, artefacts, diskFull), {
      name: 'PublishError',
      message: /^cannot write to .*kept: ENOSPC: .*\(the directory was left as it was\)$/,
    });
    assert.deepEqual(
      filesUnder(dir).map((file) => [file, readFileSync(join(dir, file), 'utf8')]),
      before,
    );
    assert.deepEqual(readdirSync(dir).sort(), ['.well-known', 'metadata']);
    written = 0;
    assert.throws(() => writePublication(out('fresh'), artefacts, diskFull), /\(nothing was published\)$/);
    assert.throws(() => statSync(out('fresh')));
  });

  it('removes a staging folder an interrupted run left, and refuses a foreign metadata/index.json', () => {
    const dir = out('interrupted');
    mkdirSync(join(dir, '.ambit-publish-abc123', 'metadata'), { recursive: true });
    publishMetadata(MANIFEST, dir);
    assert.deepEqual(readdirSync(dir).sort(), ['.well-known', 'metadata']);
    const webRoot = out('web-root');
    mkdirSync(join(webRoot, 'metadata'), { recursive: true });
    writeFileSync(join(webRoot, 'metadata', 'index.json'), '{"pages":[]}');
    assert.throws(() => publishMetadata(MANIFEST, webRoot), PublishError);
    assert.equal(readFileSync(join(webRoot, 'metadata', 'index.json'), 'utf8'), '{"pages":[]}');
  });

  it('publishes again over a run stopped between its renames, which had moved metadata/ away', () => {
    // As a run killed in the middle of moving the trees leaves it: the previous metadata/ inside its staging
    // folder, the new .well-known/ in place. Over a previous publication, and over a first one.
    const dir = out('stopped');
    publishMetadata(MANIFEST, dir);
    writeFileSync(join(dir, 'README.txt'), 'hosting notes');
    mkdirSync(join(dir, '.ambit-publish-dead', '.previous'), { recursive: true });
    renameSync(join(dir, 'metadata'), join(dir, '.ambit-publish-dead', '.previous', 'metadata'));
    publishMetadata(MANIFEST, dir);
    assert.deepEqual(readdirSync(dir).sort(), ['.well-known', 'README.txt', 'metadata']);
    const first = out('stopped-first');
    publishMetadata(MANIFEST, first);
    mkdirSync(join(first, '.ambit-publish-dead'));
    renameSync(join(first, 'metadata'), join(first, '.ambit-publish-dead', 'metadata'));
    publishMetadata(MANIFEST, first);
    assert.deepEqual(readdirSync(first).sort(), ['.well-known', 'metadata']);
    // A staging folder with no publication in it proves nothing about the files beside it.
    const other = out('stopped-other');
    mkdirSync(join(other, '.ambit-publish-dead', 'metadata'), { recursive: true });
    writeFileSync(join(other, 'important.txt'), 'keep me');
    assert.throws(() => publishMetadata(MANIFEST, other), PublishError);
    assert.deepEqual(filesUnder(other), ['important.txt']);
  });

  it('still publishes when a staging folder cannot be removed, says which one is left, and removes it later', async (t) => {
    const dir = out('undeletable');
    publishMetadata(MANIFEST, dir);
    writeFileSync(join(dir, 'metadata', 'stale.json'), '{}');
    // As a folder of the previous publication the publishing user may not delete (one another user made).
    const rmSync = fs.rmSync;
    t.mock.method(fs, 'rmSync', (path: fs.PathLike, options?: fs.RmOptions) => {
      if (String(path).includes('.ambit-publish-')) {
        throw Object.assign(new Error(`EACCES: permission denied, rmdir '${String(path)}'`), {
          code: 'EACCES',
        });
      }
      rmSync(path, options);
    });
    syncBuiltinESMExports();
    const first = captureIo();
    const second = captureIo();
    let codes: number[];
    try {
      codes = [
        await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', dir], first),
        // The next run cannot remove the folder either, and publishes all the same.
        await main(['metadata', 'publish', '--manifest', MANIFEST, '--out', dir], second),
      ];
    } finally {
      t.mock.restoreAll();
      syncBuiltinESMExports();
    }
    assert.deepEqual(codes, [0, 0]);
    assert.match(first.lines.at(-1) ?? '', /^published \d+ files to /);
    assert.equal(first.errors.length, 1, first.errors.join('\n'));
    assert.match(
      first.errors[0] ?? '',
      /^warning: could not remove .*undeletable\/\.ambit-publish-\w+ \(the previous publication, moved aside\): EACCES: [^\n]*; remove it by hand$/,
    );
    assert.ok(!filesUnder(join(dir, 'metadata')).includes('stale.json'));
    assert.match(
      second.errors.join('\n'),
      /^warning: could not remove .*\.ambit-publish-\w+ \(left by an earlier run\): EACCES: /,
    );
    publishMetadata(MANIFEST, dir);
    assert.deepEqual(readdirSync(dir).sort(), ['.well-known', 'metadata']);
  });

  it('replaces a symbolic link in place of a tree, never what it points at', () => {
    const dir = out('linked');
    publishMetadata(MANIFEST, dir);
    const elsewhere = out('elsewhere');
    mkdirSync(elsewhere);
    writeFileSync(join(elsewhere, 'keep.txt'), 'keep me');
    rmSync(join(dir, '.well-known'), { recursive: true });
    symlinkSync(elsewhere, join(dir, '.well-known'));
    publishMetadata(MANIFEST, dir);
    assert.ok(statSync(join(dir, '.well-known', 'api-catalog')).isFile());
    assert.deepEqual(readdirSync(elsewhere), ['keep.txt']);
  });

  it('leaves out the DCAT and SHACL files, and their index links, when the catalog does not publish them', () => {
    const manifest = join(tmp, 'no-rdf.yaml');
    writeFileSync(
      manifest,
      readFileSync(MANIFEST, 'utf8').replace(
        '  application_profiles:',
        '  standards: { dcat: false, shacl: false, json_schema: true }\n  application_profiles:',
      ),
    );
    publishMetadata(manifest, out('no-rdf'));
    const files = filesUnder(out('no-rdf'));
    const rdfFile = /dcat(\.[a-z-]+)?\.jsonld|shacl/;
    assert.ok(!files.some((file) => rdfFile.test(file)), files.join(' '));
    assert.ok(files.includes('metadata/policies.jsonld') && files.includes('metadata/cpsv-ap.jsonld'));
    const index = readFileSync(join(out('no-rdf'), 'metadata/index.json'), 'utf8');
    assert.doesNotMatch(index, rdfFile);
    assert.match(index, /policies\.jsonld/);
  });

  it('refuses, before writing anything, a file that is also a folder or two paths equal but for case', () => {
    const file = (path: string) => ({ path, mediaType: 'application/json', body: Buffer.from('{}\n') });
    // Datasets `people` and `people.json`: the first's descriptor is the second's folder.
    assert.throws(
      () =>
        writePublication(out('file-and-folder'), [
          file('metadata/datasets/people.json'),
          file('metadata/datasets/people.json.json'),
          file('metadata/datasets/people.json/entities.json'),
        ]),
      {
        name: 'PublishError',
        message:
          'metadata/datasets/people.json is a file and also the folder of metadata/datasets/people.json/entities.json: rename one of the ids',
      },
    );
    assert.throws(() => statSync(out('file-and-folder')));
    // Datasets `people` and `People`: one file on a case-insensitive file system (macOS, Windows).
    for (const [first, second] of [
      ['metadata/datasets/people.json', 'metadata/datasets/People.json'],
      ['metadata/datasets/people/entities.json', 'metadata/datasets/People/entities.json'],
    ] as const) {
      assert.throws(() => writePublication(out('case'), [file(first), file(second)]), {
        name: 'PublishError',
        message: new RegExp(`^${first} and ${second} differ only in case`),
      });
    }
    assert.throws(() => statSync(out('case')));
  });

  it('rejects an invalid manifest before writing anything', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, readFileSync(MANIFEST, 'utf8').replace('kind: verifier', 'kind: relay'));
    assert.throws(() => publishMetadata(bad, out('never')), ConfigError);
    assert.throws(() => statSync(out('never')));
  });

  it('refuses an output directory that cannot be made where its parent exists (/proc), rather than retrying forever', () => {
    const main = new URL('../../src/cli/main.ts', import.meta.url).href;
    const script = `import { main } from ${JSON.stringify(main)};
      const errors = [];
      const io = { env: {}, cwd: process.cwd(), out: () => {}, err: (line) => errors.push(line) };
      const code = await main(['metadata', 'publish', '--manifest', ${JSON.stringify(MANIFEST)}, '--out', '/proc/ambit-nope/out'], io);
      process.stdout.write(JSON.stringify({ code, errors }));`;
    const { code, errors } = JSON.parse(runToEnd(script)) as { code: number; errors: string[] };
    assert.equal(code, 1);
    assert.deepEqual(errors, [
      "publish failed: cannot create /proc/ambit-nope/out: ENOENT: no such file or directory, mkdir '/proc/ambit-nope'",
    ]);
  });
});
