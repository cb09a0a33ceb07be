// DCAT-AP 3.0.1 and BRegDCAT-AP 2.0: the relay's and the publisher's catalogue, expanded to RDF offline, meets the
// official SHACL shapes: the full template with its range checks, the split core and range shapes, and only
// Warnings from the recommended-property shapes. The checks are shown to fail on broken input first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { staticMetadataLinks } from '../src/relay/metadata/model/metadata-links.ts';
import { renderBregDcatAp } from '../src/relay/metadata/renderers/rdf/render-bregdcat-ap.ts';
import { renderDcat } from '../src/relay/metadata/renderers/rdf/render-dcat.ts';
import { DEMO_DIR, type Persona, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { UnbundledContextError } from './rdf/offline-document-loader.ts';
import { type Dataset, instancesOf, jsonLdToDataset, turtleToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';
import { standardsDir } from './standards-dir.ts';

const DCAT = 'http://www.w3.org/ns/dcat#';
const DCAT_AP = 'dcat-ap/3.0.1';
const FULL_TEMPLATE = [`${DCAT_AP}/shacl/dcat-ap-SHACL.ttl`];
const CORE_AND_RANGES = [`${DCAT_AP}/shacl-split/shapes.ttl`, `${DCAT_AP}/shacl-split/range.ttl`];
const RECOMMENDED = [`${DCAT_AP}/shacl-split/shapes_recommended.ttl`];
const BREG_SHAPES = ['bregdcat-ap/2.0.0/BRegDCAT-AP_shacl_shapes_2.00.ttl'];

type Json = Record<string, unknown>;

async function assertConforms(document: unknown, shapeFiles: string[], label: string): Promise<Dataset> {
  const data = await jsonLdToDataset(document);
  const report = await validateShacl(data, turtleToDataset(...shapeFiles));
  assert.deepEqual(violations(report), [], `${label}:\n${describeResults(violations(report))}`);
  return data;
}

const demoModel = () =>
  buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);

describe('the conformance tooling', () => {
  it('expands the official DCAT-AP example with the bundled context, and it conforms', async () => {
    const example = JSON.parse(
      readFileSync(join(standardsDir(), `${DCAT_AP}/examples/example-bee-population.jsonld`), 'utf8'),
    );
    const data = await assertConforms(example, [`${DCAT_AP}/shacl-split/shapes.ttl`], 'official example');
    assert.deepEqual(instancesOf(data, `${DCAT}Dataset`), ['https://data.gov.gr/id/dataset/BeePopulation']);
  });

  it('never fetches: a document citing an unbundled context is refused', async () => {
    await assert.rejects(
      jsonLdToDataset({ '@context': 'https://example.org/context.jsonld', '@id': 'urn:x', title: 'x' }),
      (error: unknown) =>
        error instanceof UnbundledContextError ||
        (error instanceof Error &&
          (error as { details?: { cause?: unknown } }).details?.cause instanceof UnbundledContextError),
    );
  });

  it('refuses JSON-LD that would drop a member instead of expanding it (safe mode)', async () => {
    await assert.rejects(
      jsonLdToDataset({ '@context': { dct: 'http://purl.org/dc/terms/' }, '@id': 'urn:x', title: 'lost' }),
    );
  });

  it('finds a missing mandatory property and an untyped range', async () => {
    const document = renderDcat(demoModel(), staticMetadataLinks('https://static.example.org')) as {
      '@graph': Json[];
    };
    const broken = structuredClone(document);
    const dataset = broken['@graph'].find((node) => node['@type'] === 'dcat:Dataset') as Json;
    delete dataset['dct:description'];
    dataset['dct:accessRights'] = { '@id': 'http://example.org/untyped-rights' };
    const report = await validateShacl(await jsonLdToDataset(broken), turtleToDataset(...FULL_TEMPLATE));
    const found = violations(report).map((result) => `${result.constraint} ${result.path}`);
    assert.ok(
      found.includes('MinCountConstraintComponent http://purl.org/dc/terms/description'),
      found.join(),
    );
    assert.ok(found.includes('ClassConstraintComponent http://purl.org/dc/terms/accessRights'), found.join());
  });
});

describe('DCAT-AP 3.0.1 and BRegDCAT-AP 2.0 output', () => {
  let relay: TestRelay;
  let bare: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
    bare = await startDemoRelay({
      edit: (text) => text.replace(/\nmetadata:\n {2}source:\n {4}path: relay\.metadata\.yaml\n/, '\n'),
    });
  });
  after(async () => {
    await relay.close();
    await bare.close();
  });
  const served = async (on: TestRelay, path: string, as: Persona) =>
    (await on.get(path, { as })).json() as Json;

  it('the relay catalogue meets the full template, with every range check', async () => {
    const data = await assertConforms(
      await served(relay, '/metadata/dcat', 'catalog_viewer'),
      FULL_TEMPLATE,
      'relay',
    );
    // The commonest failure is a document that expands to nothing: every dataset and distribution is there.
    assert.equal(instancesOf(data, `${DCAT}Catalog`).length, 1);
    assert.equal(instancesOf(data, `${DCAT}Dataset`).length, 3);
    // One per dataset for the data API, and three per declared aggregate of the demo's four (JSON, CSV, SDMX-JSON).
    assert.equal(instancesOf(data, `${DCAT}Distribution`).length, 3 + 4 * 3);
    assert.equal(instancesOf(data, `${DCAT}DataService`).length, 1);
    // The demo's nine codelists and the EU resource-type table its legislation is typed from.
    assert.equal(instancesOf(data, 'http://www.w3.org/2004/02/skos/core#ConceptScheme').length, 10);
  });

  it('the relay catalogue meets the split core and range shapes; recommended ones only warn', async () => {
    const document = await served(relay, '/metadata/dcat', 'catalog_viewer');
    await assertConforms(document, CORE_AND_RANGES, 'core and ranges');
    const report = await validateShacl(await jsonLdToDataset(document), turtleToDataset(...RECOMMENDED));
    assert.ok(report.results.length > 0, 'the recommended shapes have something to say');
    assert.deepEqual(
      report.results.filter((result) => result.severity !== 'Warning'),
      [],
    );
  });

  it('every scoped view conforms, as does the catalogue of a relay without a manifest', async () => {
    for (const persona of ['caseworker', 'health_planner'] as const) {
      const data = await assertConforms(
        await served(relay, '/metadata/dcat', persona),
        FULL_TEMPLATE,
        persona,
      );
      assert.ok(instancesOf(data, `${DCAT}Dataset`).length >= 1);
    }
    const data = await assertConforms(
      await served(bare, '/metadata/dcat', 'catalog_viewer'),
      FULL_TEMPLATE,
      'no manifest',
    );
    assert.equal(instancesOf(data, `${DCAT}Dataset`).length, 3);
    assert.deepEqual(instancesOf(data, `${DCAT}DataService`), ['http://127.0.0.1:4242/v1/datasets']);
  });

  it('the published catalogue conforms too', async () => {
    const model = demoModel();
    const links = staticMetadataLinks('https://static.example.org');
    // An empty graph conforms to any shapes: the documents hold the catalogue the shapes are meant to check.
    for (const data of [
      await assertConforms(renderDcat(model, links), FULL_TEMPLATE, 'static DCAT-AP'),
      await assertConforms(renderBregDcatAp(model, links), BREG_SHAPES, 'static BRegDCAT-AP'),
    ]) {
      assert.equal(instancesOf(data, `${DCAT}Catalog`).length, 1);
      assert.equal(instancesOf(data, `${DCAT}Dataset`).length, 3);
    }
  });

  it('a catalogue without JSON Schemas conforms, its distributions naming no schema', async () => {
    const model = demoModel();
    const withoutSchemas = {
      ...model,
      catalog: { ...model.catalog, standards: { ...model.catalog.standards, jsonSchema: false } },
    };
    const links = staticMetadataLinks('https://static.example.org');
    const document = renderDcat(withoutSchemas, links);
    assert.doesNotMatch(JSON.stringify(document), /schema\.json/);
    const data = await assertConforms(document, FULL_TEMPLATE, 'DCAT-AP without JSON Schemas');
    assert.equal(instancesOf(data, `${DCAT}Distribution`).length, 3);
  });

  it('the BRegDCAT-AP profile meets the BRegDCAT-AP shapes and still the DCAT-AP ones', async () => {
    for (const persona of ['catalog_viewer', 'caseworker', 'health_planner'] as const) {
      const document = await served(relay, '/metadata/dcat/bregdcat-ap', persona);
      const data = await assertConforms(document, BREG_SHAPES, `BRegDCAT-AP ${persona}`);
      await assertConforms(document, FULL_TEMPLATE, `DCAT-AP over BRegDCAT-AP ${persona}`);
      assert.ok(instancesOf(data, `${DCAT}Dataset`).length >= 1, persona);
    }
    const data = await jsonLdToDataset(await served(relay, '/metadata/dcat/bregdcat-ap', 'catalog_viewer'));
    assert.deepEqual(instancesOf(data, 'http://purl.org/vocab/cpsv#PublicService'), [
      'https://demo.example.gov/services/cash-transfer-programme',
    ]);
    assert.deepEqual(instancesOf(data, 'http://data.europa.eu/m8g/PublicOrganisation'), [
      'https://demo.example.gov/authorities/social-protection-agency',
    ]);
    const bareData = await assertConforms(
      await served(bare, '/metadata/dcat/bregdcat-ap', 'catalog_viewer'),
      BREG_SHAPES,
      'no manifest',
    );
    assert.equal(instancesOf(bareData, `${DCAT}Dataset`).length, 3);
  });

  it('a BRegDCAT-AP public service without its mandatory members fails the shapes', async () => {
    const document = structuredClone(await served(relay, '/metadata/dcat/bregdcat-ap', 'catalog_viewer')) as {
      '@graph': Json[];
    };
    const service = document['@graph'].find((node) => node['@type'] === 'cpsv:PublicService') as Json;
    delete service['cv:hasCompetentAuthority'];
    delete service['dct:identifier'];
    const report = await validateShacl(await jsonLdToDataset(document), turtleToDataset(...BREG_SHAPES));
    const paths = violations(report).map((result) => result.path);
    assert.ok(paths.includes('http://data.europa.eu/m8g/hasCompetentAuthority'), paths.join());
    assert.ok(paths.includes('http://purl.org/dc/terms/identifier'), paths.join());
  });

  it('types each applicable legislation for BRegDCAT-AP, and one without a type fails its shapes', async () => {
    const document = (await served(relay, '/metadata/dcat/bregdcat-ap', 'catalog_viewer')) as {
      '@graph': Json[];
    };
    const data = await assertConforms(document, BREG_SHAPES, 'BRegDCAT-AP with legislation');
    assert.deepEqual(instancesOf(data, 'http://data.europa.eu/eli/ontology#ResourceType').sort(), [
      'http://publications.europa.eu/resource/authority/resource-type/LAW',
      'http://publications.europa.eu/resource/authority/resource-type/REG',
    ]);
    const untyped = structuredClone(document);
    const dataset = untyped['@graph'].find((node) => node['dct:identifier'] === 'civil_registry') as Json;
    dataset['dcatap:applicableLegislation'] = {
      '@id': 'https://example.org/some-act',
      '@type': 'eli:LegalResource',
    };
    const report = await validateShacl(await jsonLdToDataset(untyped), turtleToDataset(...BREG_SHAPES));
    assert.ok(
      violations(report).some(
        (result) =>
          result.path === 'http://purl.org/dc/terms/type' &&
          result.focusNode === 'https://example.org/some-act',
      ),
      describeResults(violations(report)),
    );
  });
});
