// `ambit metadata publish` output: byte-stable, indexed with digests, as the relay renders, --base-url.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/platform/clock.ts';
import { silentLogger } from '../../src/platform/log.ts';
import { systemRandom } from '../../src/platform/random.ts';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { createStaticMetadataApp } from '../../src/publisher/serve-static-metadata.ts';
import { digestOf } from '../../src/relay/metadata/load-manifest.ts';
import { startDemoRelay } from '../helpers/relay-harness.ts';
import { filesUnder, MANIFEST, useTempDir } from './publisher-fixture.ts';

const MINIMAL = new URL('../config/manifests/minimal.metadata.yaml', import.meta.url);

describe('ambit metadata publish', () => {
  const tmp = useTempDir('ambit-publish-');
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
    // Every published file but the manifest copy: the relay's data API keeps its address, the metadata moves.
    const files = filesUnder(out('moved')).filter((file) => file !== 'metadata/metadata.yaml');
    assert.ok(files.length >= 30, `only ${files.length} files`);
    for (const file of files)
      assert.doesNotMatch(
        readFileSync(join(out('moved'), file), 'utf8'),
        /127\.0\.0\.1:4242\/(metadata|\.well-known)/,
        file,
      );
    const catalog = JSON.parse(readFileSync(join(out('moved'), '.well-known/api-catalog'), 'utf8')) as {
      linkset: { anchor: string }[];
    };
    assert.equal(catalog.linkset[0]?.anchor, 'https://metadata.example.org/.well-known/api-catalog');
  });

  it('types a file named for an id `schema` as what it is, not as a JSON Schema', async () => {
    // Dataset, entity and offering `schema`: their descriptors end in /schema.json like the entity's schema.
    const manifest = join(tmp, 'schema-ids.yaml');
    writeFileSync(
      manifest,
      readFileSync(MINIMAL, 'utf8')
        .replace('- id: people', '- id: schema')
        .replace('- name: persons', '- name: schema')
        .replace('entity: persons', 'entity: schema')
        .replace('- id: person-exists', '- id: schema'),
    );
    const dir = out('schema-ids');
    publishMetadata(manifest, dir);
    const index = JSON.parse(readFileSync(join(dir, 'metadata/index.json'), 'utf8')) as {
      files: { path: string; media_type: string }[];
    };
    const expected: Record<string, string> = {
      'metadata/datasets/schema.json': 'application/json',
      'metadata/datasets/schema/entities/schema.json': 'application/json',
      'metadata/evidence-offerings/schema.json': 'application/json',
      'metadata/schema/schema/schema/schema.json': 'application/schema+json',
    };
    const app = createStaticMetadataApp(dir, {
      logger: silentLogger(),
      clock: systemClock,
      random: systemRandom,
    });
    try {
      for (const [path, type] of Object.entries(expected)) {
        assert.equal(index.files.find((file) => file.path === path)?.media_type, type, path);
        const response = await app.inject({ method: 'GET', url: `/${path}` });
        assert.equal(response.statusCode, 200, path);
        assert.equal(response.headers['content-type'], type, path);
      }
    } finally {
      await app.close();
    }
  });

  it('copies a manifest saved with a byte order mark byte for byte, so its digest is the one validate prints', () => {
    const manifest = join(tmp, 'bom.yaml');
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(MINIMAL)]);
    writeFileSync(manifest, bytes);
    publishMetadata(manifest, out('bom'));
    const copy = readFileSync(join(out('bom'), 'metadata/metadata.yaml'));
    assert.ok(copy.equals(bytes));
    assert.equal(digestOf(copy), digestOf(bytes));
  });
});
