// The static publisher: byte-stable output, an index that lists every file, the same documents as the relay,
// safe writes, the three CLI commands, and the unauthenticated static server.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { CliIo } from '../../src/cli/cli-io.ts';
import { main } from '../../src/cli/main.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { createStaticMetadataApp } from '../../src/publisher/serve-static-metadata.ts';
import { PublishError, writePublication } from '../../src/publisher/write-publication.ts';
import { assertProblem, assertSecurityHeaders } from '../helpers/http-checks.ts';
import { DEMO_DIR, startDemoRelay } from '../helpers/relay-harness.ts';

const MANIFEST = join(DEMO_DIR, 'relay.metadata.yaml');

function filesUnder(root: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? walk(path) : [relative(root, path)];
    });
  return walk(root).sort();
}

function captureIo(): CliIo & { lines: string[]; errors: string[] } {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    env: {},
    cwd: process.cwd(),
    out: (l) => lines.push(l),
    err: (l) => errors.push(l),
    lines,
    errors,
  };
}

describe('ambit metadata publish', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ambit-publish-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));
  const out = (name: string) => join(tmp, name);

  it('writes byte-identical directories on every run', () => {
    publishMetadata(MANIFEST, out('a'));
    publishMetadata(MANIFEST, out('b'));
    const files = filesUnder(out('a'));
    assert.deepEqual(filesUnder(out('b')), files);
    assert.ok(files.length >= 30, `only ${files.length} files`);
    for (const file of files)
      assert.ok(readFileSync(join(out('a'), file)).equals(readFileSync(join(out('b'), file))), file);
  });

  it('publishes the files of the spec, and an index naming each with its digest', () => {
    const files = filesUnder(out('a'));
    for (const path of [
      '.well-known/api-catalog',
      'metadata/index.json',
      'metadata/catalog.json',
      'metadata/evidence-offerings.json',
      'metadata/evidence-offerings/civil-person-record.json',
      'metadata/evidence-offerings/sp-household-enrolment.json',
      'metadata/schema/civil_registry/persons/schema.json',
      'metadata/forms/cash-transfer-application/schema.json',
      'metadata/ogc/records.geojson',
      'metadata/ogc/records/health_facilities.geojson',
      'metadata/profiles/dcat-ap.json',
      'metadata/metadata.yaml',
      'metadata/dcat.jsonld',
      'metadata/dcat.bregdcat-ap.jsonld',
      'metadata/cpsv-ap.jsonld',
      'metadata/shacl.jsonld',
      'metadata/shacl/civil_registry/persons.jsonld',
      'metadata/shacl/social_protection/payments.jsonld',
      'metadata/policies.jsonld',
      'metadata/policies/civil_registry.jsonld',
      'metadata/policies/social_protection.jsonld',
    ]) {
      assert.ok(files.includes(path), `missing ${path}`);
    }
    // A dataset without a policy has no policy file.
    assert.ok(!files.includes('metadata/policies/health_facilities.jsonld'));
    const index = JSON.parse(readFileSync(join(out('a'), 'metadata/index.json'), 'utf8')) as {
      files: { path: string; media_type: string; bytes: number; sha256: string }[];
    };
    assert.deepEqual(
      index.files.map((file) => file.path).sort(),
      files.filter((f) => f !== 'metadata/index.json'),
    );
    for (const file of index.files) {
      const bytes = readFileSync(join(out('a'), file.path));
      assert.equal(file.bytes, bytes.length);
      assert.equal(file.sha256, createHash('sha256').update(bytes).digest('hex'));
    }
    const media = Object.fromEntries(index.files.map((file) => [file.path, file.media_type]));
    assert.equal(media['metadata/schema/civil_registry/persons/schema.json'], 'application/schema+json');
    assert.equal(media['metadata/ogc/records.geojson'], 'application/geo+json');
    assert.equal(media['metadata/metadata.yaml'], 'application/yaml');
    for (const path of ['metadata/dcat.jsonld', 'metadata/cpsv-ap.jsonld', 'metadata/shacl.jsonld'])
      assert.equal(media[path], 'application/ld+json');
    assert.equal(
      readFileSync(join(out('a'), 'metadata/metadata.yaml'), 'utf8'),
      readFileSync(MANIFEST, 'utf8'),
    );
  });

  it('renders the same documents as the relay (one implementation)', async () => {
    const relay = await startDemoRelay();
    try {
      const read = (path: string) => JSON.parse(readFileSync(join(out('a'), path), 'utf8'));
      const served = async (path: string) => (await relay.get(path, { as: 'catalog_viewer' })).json();
      assert.deepEqual(
        read('metadata/evidence-offerings.json'),
        await served('/metadata/evidence-offerings'),
      );
      assert.deepEqual(
        read('metadata/schema/civil_registry/persons/schema.json'),
        await served('/metadata/schema/civil_registry/persons/schema.json'),
      );
      assert.deepEqual(read('metadata/ogc/records.geojson'), await served('/metadata/ogc/records'));
      for (const [file, path] of [
        ['metadata/shacl.jsonld', '/metadata/shacl'],
        [
          'metadata/shacl/social_protection/members.jsonld',
          '/metadata/datasets/social_protection/entities/members/shacl',
        ],
        ['metadata/policies.jsonld', '/metadata/policies'],
        ['metadata/policies/civil_registry.jsonld', '/metadata/datasets/civil_registry/policy'],
        ['metadata/cpsv-ap.jsonld', '/metadata/cpsv-ap'],
      ]) {
        assert.deepEqual(read(file as string), await served(path as string), file);
      }
      // Catalogues differ only where they link (the published one's landing pages are files) and in what the
      // relay's config alone knows: its aggregates, published as distributions.
      const isAggregate = (id: unknown) => String(id).includes('/distributions/aggregate-');
      const comparable = (document: { '@graph': Record<string, unknown>[] }) =>
        document['@graph']
          .filter((node) => !isAggregate(node['@id']))
          .map(({ 'dcat:landingPage': _page, 'dcat:distribution': distribution, ...node }) => ({
            ...node,
            distributions: [distribution ?? []]
              .flat()
              .filter((ref) => !isAggregate((ref as { '@id': string })['@id'])),
          }));
      const published = read('metadata/dcat.jsonld');
      const relayDcat = await served('/metadata/dcat');
      assert.deepEqual(comparable(published), comparable(relayDcat));
      assert.ok(relayDcat['@graph'].some((node: Record<string, unknown>) => isAggregate(node['@id'])));
      assert.match(
        JSON.stringify(published),
        /"dcat:landingPage":\{"@id":"http:\/\/127\.0\.0\.1:4242\/metadata\/datasets\/civil_registry\.json"/,
      );
    } finally {
      await relay.close();
    }
  });

  it('moves every link with --base-url', () => {
    publishMetadata(MANIFEST, out('moved'), { baseUrl: 'https://metadata.example.org' });
    const offering = JSON.parse(
      readFileSync(join(out('moved'), 'metadata/evidence-offerings/civil-person-record.json'), 'utf8'),
    );
    assert.equal(
      offering.verification_request_schema_url,
      'https://metadata.example.org/metadata/schema/civil_registry/persons/schema.json',
    );
    assert.doesNotMatch(
      readFileSync(join(out('moved'), 'metadata/catalog.json'), 'utf8'),
      /127\.0\.0\.1:4242\/metadata/,
    );
  });

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
    // A file where a folder is needed fails part-way, as a full disk or a permission would.
    const failing = [
      ...artefacts,
      { path: 'metadata/index.json/x', mediaType: 'application/json', body: Buffer.from('{}') },
    ];
    assert.throws(() => writePublication(dir, failing), {
      name: 'PublishError',
      message: /^cannot write to .*kept: E[A-Z]+: .*\(the directory was left as it was\)$/,
    });
    assert.deepEqual(
      filesUnder(dir).map((file) => [file, readFileSync(join(dir, file), 'utf8')]),
      before,
    );
    assert.deepEqual(readdirSync(dir).sort(), ['.well-known', 'metadata']);
    assert.throws(() => writePublication(out('fresh'), failing), /\(nothing was published\)$/);
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

  it('rejects an invalid manifest before writing anything', () => {
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, readFileSync(MANIFEST, 'utf8').replace('kind: verifier', 'kind: relay'));
    assert.throws(() => publishMetadata(bad, out('never')), ConfigError);
    assert.throws(() => statSync(out('never')));
  });
});

describe('metadata CLI commands', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ambit-metadata-cli-'));
  after(() => rmSync(tmp, { recursive: true, force: true }));

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
    assert.match(ok.lines[0] ?? '', /^ok: .*\(3 datasets, 5 entities, 2 evidence offerings, 1 forms\)$/);
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
    const noIndex = captureIo();
    assert.equal(await main(['metadata', 'serve', '--dir', tmp], noIndex), 1);
    assert.match(noIndex.errors[0] ?? '', /no metadata\/index\.json/);
  });
});

describe('ambit metadata serve', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'ambit-metadata-serve-'));
  const site = join(tmp, 'site');
  let app: ReturnType<typeof createStaticMetadataApp>;
  before(async () => {
    publishMetadata(MANIFEST, site);
    writeFileSync(join(site, 'metadata', 'extra.jsonld'), '{"@context":{}}\n');
    writeFileSync(join(tmp, 'secret.txt'), 'outside the root');
    symlinkSync(join(tmp, 'secret.txt'), join(site, 'metadata', 'link.json'));
    writeFileSync(join(site, 'metadata', '.hidden.json'), '{}');
    app = createStaticMetadataApp(site, { logger: silentLogger(), clock: systemClock, random: systemRandom });
    await app.ready();
  });
  after(async () => {
    await app.close();
    rmSync(tmp, { recursive: true, force: true });
  });
  const get = (url: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url, headers });

  it('serves each file unauthenticated with its media type and the security headers', async () => {
    const expected: [string, string][] = [
      ['/metadata/catalog.json', 'application/json'],
      ['/metadata/evidence-offerings.json', 'application/json'],
      ['/metadata/schema/civil_registry/persons/schema.json', 'application/schema+json'],
      ['/metadata/ogc/records.geojson', 'application/geo+json'],
      ['/metadata/extra.jsonld', 'application/ld+json'],
      ['/metadata/metadata.yaml', 'application/yaml'],
      [
        '/.well-known/api-catalog',
        'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
      ],
    ];
    for (const [url, type] of expected) {
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.equal(response.headers['content-type'], type, url);
      assertSecurityHeaders(response);
      assert.ok(response.rawPayload.equals(readFileSync(join(site, ...url.slice(1).split('/')))), url);
    }
  });

  it('serves the index for the root and for /metadata, and answers HEAD and If-None-Match', async () => {
    const index = readFileSync(join(site, 'metadata', 'index.json'), 'utf8');
    assert.equal((await get('/')).body, index);
    assert.equal((await get('/metadata')).body, index);
    assert.equal((await get('/metadata/')).body, index);
    const first = await get('/metadata/catalog.json');
    const revalidated = await get('/metadata/catalog.json', {
      'if-none-match': first.headers.etag as string,
    });
    assert.equal(revalidated.statusCode, 304);
    const head = await app.inject({ method: 'HEAD', url: '/metadata/catalog.json' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
  });

  it('never serves anything outside the publication, hidden files or other methods', async () => {
    for (const url of [
      '/metadata/../../secret.txt',
      '/metadata/%2e%2e/%2e%2e/secret.txt',
      '/metadata/..%2f..%2fsecret.txt',
      '/metadata/link.json',
      '/metadata/.hidden.json',
      '/.git/config',
      '/metadata/nope.json',
      '/metadata/datasets',
    ]) {
      assertProblem(await get(url), 404, 'http.not_found');
    }
    assertProblem(
      await app.inject({ method: 'POST', url: '/metadata/catalog.json', payload: '' }),
      404,
      'http.not_found',
    );
  });
});
