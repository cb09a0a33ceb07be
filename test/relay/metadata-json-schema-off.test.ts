// A catalog with `catalog.standards.json_schema: false` publishes no JSON Schema: the relay's metadata schema
// routes answer 404 (after the scope check, as for DCAT), the static publication writes no schema file, and no
// served or published document links to one. The data API's own `/v1/.../schema` route is not a metadata document
// and stays.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { publishMetadata } from '../../src/publisher/publish-metadata.ts';
import { loadManifestFile } from '../../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../../src/relay/metadata/model/build-model-from-manifest.ts';
import { isAvailable } from '../../src/relay/metadata/routes/metadata-route.ts';
import { METADATA_ROUTES } from '../../src/relay/metadata/routes/metadata-route-table.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';
import { filesUnder } from '../publisher/publisher-fixture.ts';

/** Any URL of a metadata JSON Schema document, relay route or published file. */
const SCHEMA_LINK =
  /\/metadata\/schema\/|\/metadata\/forms\/[^"\s]*\/schema\.json|\/metadata\/datasets\/[^"\s]*\/entities\/[^"\s/]+\/schema(?![\w-])/;
const SCHEMA_ROUTES = [
  '/metadata/schema/civil_registry/persons/schema.json',
  '/metadata/datasets/civil_registry/entities/persons/schema',
  '/metadata/forms/cash-transfer-application/schema.json',
];

function writeManifest(dir: string, jsonSchema: boolean): string {
  const path = join(dir, `relay.metadata.${jsonSchema}.yaml`);
  const text = readFileSync(join(DEMO_DIR, 'relay.metadata.yaml'), 'utf8').replace(
    '  application_profiles:',
    `  standards: { dcat: true, shacl: true, json_schema: ${jsonSchema} }\n  application_profiles:`,
  );
  assert.notEqual(text, readFileSync(join(DEMO_DIR, 'relay.metadata.yaml'), 'utf8'));
  writeFileSync(path, text);
  return path;
}

/** Every path of every document the route table renders for a model, relay-only routes included. */
function documentPaths(manifest: string): { path: string; available: boolean }[] {
  const model = buildModelFromManifest(loadManifestFile(manifest).manifest);
  const eachEntity = model.datasets.flatMap((d) =>
    d.entities.map((e) => ({ dataset_id: d.id, entity: e.name })),
  );
  return METADATA_ROUTES.flatMap((route) => {
    const instances =
      route.publish?.instances(model) ??
      (route.path.includes(':entity') ? eachEntity : route.path.includes(':') ? [] : [{}]);
    return instances.map((params) => ({
      path: route.path.replace(
        /:(\w+)/g,
        (_m, name: string) => (params as Record<string, string>)[name] ?? '',
      ),
      available: isAvailable(route, model),
    }));
  });
}

describe('json_schema: false on the relay', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-json-schema-off-'));
  const manifest = writeManifest(dir, false);
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({
      edit: (config) => config.replace('path: relay.metadata.yaml', `path: ${manifest}`),
    });
  });
  after(async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 on the metadata schema routes, after the scope check', async () => {
    for (const path of SCHEMA_ROUTES) {
      assertProblem(await relay.get(path, { as: 'catalog_viewer' }), 404, 'schema.unknown_resource');
    }
    assertProblem(await relay.get(SCHEMA_ROUTES[0] as string, { as: 'operator' }), 403, 'auth.scope_denied');
  });

  it('keeps the data API schema route', async () => {
    const response = await relay.get('/v1/datasets/civil_registry/entities/persons/schema', {
      as: 'caseworker',
    });
    assert.equal(response.statusCode, 200, response.body);
  });

  it('serves no document that links to a JSON Schema', async () => {
    const paths = [...documentPaths(manifest), { path: '/.well-known/api-catalog', available: true }];
    let scanned = 0;
    for (const { path, available } of paths) {
      const response = await relay.get(path, { as: 'catalog_viewer' });
      if (!available || SCHEMA_ROUTES.includes(path) || /\/schema(\.json)?$/.test(path)) {
        assert.equal(response.statusCode, 404, path);
        continue;
      }
      assert.equal(response.statusCode, 200, `${path}: ${response.body}`);
      assert.doesNotMatch(response.body, SCHEMA_LINK, path);
      scanned++;
    }
    assert.ok(scanned > 20, `only ${scanned} documents scanned`);
  });

  it('keeps the offering and form members, as null, and drops the entity schema links', async () => {
    const offering = (
      await relay.get('/metadata/evidence-offerings/civil-person-record', { as: 'catalog_viewer' })
    ).json() as Record<string, unknown>;
    assert.ok('verification_request_schema_url' in offering);
    assert.equal(offering.verification_request_schema_url, null);
    const catalog = (await relay.get('/metadata/catalog', { as: 'catalog_viewer' })).json() as {
      forms: Record<string, unknown>[];
    };
    assert.ok(catalog.forms.length > 0);
    for (const form of catalog.forms) assert.equal(form.schema_url, null);
    const entity = (
      await relay.get('/metadata/datasets/civil_registry/entities/persons', { as: 'catalog_viewer' })
    ).json() as { links: Record<string, string> };
    assert.deepEqual(Object.keys(entity.links), ['self', 'up']);
  });
});

describe('json_schema: false in the static publication', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-json-schema-off-publish-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('links to schemas when they are published (the scan finds them)', () => {
    const out = join(dir, 'on');
    publishMetadata(writeManifest(dir, true), out);
    const files = filesUnder(out);
    assert.ok(files.includes('metadata/schema/civil_registry/persons/schema.json'));
    assert.match(readFileSync(join(out, 'metadata/catalog.json'), 'utf8'), SCHEMA_LINK);
    assert.match(readFileSync(join(out, 'metadata/dcat.jsonld'), 'utf8'), SCHEMA_LINK);
  });

  it('writes no schema file, and no published file links to one', () => {
    const out = join(dir, 'off');
    publishMetadata(writeManifest(dir, false), out);
    const files = filesUnder(out);
    assert.ok(!files.some((file) => file.endsWith('schema.json')), files.join(' '));
    assert.ok(files.includes('metadata/dcat.jsonld') && files.includes('metadata/catalog.json'));
    for (const file of files) {
      if (file === 'metadata/metadata.yaml') continue;
      assert.doesNotMatch(readFileSync(join(out, file), 'utf8'), SCHEMA_LINK, file);
    }
  });
});
