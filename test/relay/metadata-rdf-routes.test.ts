// The RDF metadata routes (DCAT-AP, BRegDCAT-AP, SHACL, ODRL, CPSV-AP): JSON-LD with inline contexts, per-dataset
// and per-entity documents equal to their part of the catalog-wide ones, 404s for what is not published, and the
// same documents rendered from the relay config when no manifest is named. Scoping and 304s are in
// metadata-scoping.test.ts; standards conformance in conformance/metadata-rdf.test.ts.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from '../helpers/http-checks.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

const RDF_ROUTES = [
  '/metadata/dcat',
  '/metadata/dcat/bregdcat-ap',
  '/metadata/shacl',
  '/metadata/policies',
  '/metadata/cpsv-ap',
  '/metadata/datasets/civil_registry/entities/persons/shacl',
  '/metadata/datasets/civil_registry/policy',
];

type Node = Record<string, unknown> & { '@id'?: string; '@type'?: string | string[] };
type Graph = { '@context': Record<string, string>; '@graph': Node[] };

const types = (node: Node) => [node['@type'] ?? []].flat();

describe('RDF metadata routes', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());
  const json = async (path: string) => {
    const response = await relay.get(path, { as: 'catalog_viewer' });
    assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 300)}`);
    return response.json() as Graph & Node;
  };

  it('answers JSON-LD whose context is inline (nothing to fetch to read it)', async () => {
    for (const path of RDF_ROUTES) {
      const response = await relay.get(path, { as: 'catalog_viewer' });
      assert.equal(response.headers['content-type'], 'application/ld+json', path);
      const body = response.json() as Graph;
      assert.equal(typeof body['@context'], 'object', path);
      for (const namespace of Object.values(body['@context'])) assert.match(namespace, /^https?:\/\//, path);
      assert.doesNotMatch(response.body, /"@context":\s*"/, `${path} cites a remote context`);
    }
  });

  it('answers 404 for an unknown DCAT profile and for the policy of a dataset that declares none', async () => {
    for (const path of ['/metadata/dcat/nope', '/metadata/dcat/dcat-ap', '/metadata/dcat/BREGDCAT-AP']) {
      assertProblem(await relay.get(path, { as: 'catalog_viewer' }), 404, 'schema.unknown_resource');
    }
    assertProblem(
      await relay.get('/metadata/datasets/health_facilities/policy', { as: 'catalog_viewer' }),
      404,
      'schema.unknown_resource',
    );
    assertProblem(
      await relay.get('/metadata/datasets/civil_registry/entities/nope/shacl', { as: 'catalog_viewer' }),
      404,
      'schema.unknown_resource',
    );
  });

  it("serves each dataset's ODRL Offer alone, equal to its node in /metadata/policies", async () => {
    const all = await json('/metadata/policies');
    assert.deepEqual(
      all['@graph'].map((offer) => offer['@id']),
      [
        'https://demo.example.gov/policies/civil-registry',
        'https://demo.example.gov/policies/social-protection',
      ],
    );
    for (const [ds, offer] of [
      ['civil_registry', all['@graph'][0]],
      ['social_protection', all['@graph'][1]],
    ] as const) {
      const { '@context': context, ...alone } = await json(`/metadata/datasets/${ds}/policy`);
      assert.deepEqual(context, all['@context']);
      assert.deepEqual(alone, offer);
      assert.equal(alone['@type'], 'odrl:Offer');
      assert.deepEqual(alone['odrl:target'], { '@id': `http://127.0.0.1:4242/metadata/datasets/${ds}` });
    }
    // The purpose constraint of the manifest, with ODRL's own terms for action, operand and operator.
    assert.deepEqual(all['@graph'][0]?.['odrl:permission'], {
      'odrl:action': { '@id': 'odrl:use' },
      'odrl:constraint': {
        'odrl:leftOperand': { '@id': 'odrl:purpose' },
        'odrl:operator': { '@id': 'odrl:isA' },
        'odrl:rightOperand': { '@id': 'https://demo.example.gov/purpose/benefit-eligibility' },
      },
    });
  });

  it("serves each entity's SHACL shape alone, equal to its shape in /metadata/shacl", async () => {
    const all = await json('/metadata/shacl');
    const shapes = all['@graph'].filter((node) => types(node).includes('sh:NodeShape'));
    assert.equal(shapes.length, 5);
    for (const shape of shapes) {
      const [ds, entity] = String(shape['dct:identifier']).split('/');
      const one = await json(`/metadata/datasets/${ds}/entities/${entity}/shacl`);
      assert.deepEqual(
        one['@graph'].find((node) => types(node).includes('sh:NodeShape')),
        shape,
      );
    }
    const persons = shapes.find((shape) => shape['dct:identifier'] === 'civil_registry/persons') as Node;
    const sex = (persons['sh:property'] as Node[]).find((property) => property['sh:name'] === 'sex');
    assert.deepEqual(sex?.['sh:in'], { '@list': ['female', 'male', 'other'] });
    assert.equal(
      persons['sh:targetClass'] && (persons['sh:targetClass'] as Node)['@id'],
      'https://schema.org/Person',
    );
  });

  it('embeds the codelists the shapes use as SKOS concept schemes', async () => {
    const one = await json('/metadata/datasets/civil_registry/entities/persons/shacl');
    const schemes = one['@graph'].filter((node) => types(node).includes('skos:ConceptScheme'));
    assert.deepEqual(
      schemes.map((scheme) => scheme['dct:identifier']),
      ['sex'],
    );
    const concepts = (schemes[0]?.['skos:hasTopConcept'] ?? []) as Node[];
    assert.deepEqual(
      concepts.map((concept) => concept['skos:notation']),
      ['female', 'male', 'other'],
    );
  });

  it('makes BRegDCAT-AP the DCAT-AP graph plus the public services that produce the datasets', async () => {
    const dcat = await json('/metadata/dcat');
    const breg = await json('/metadata/dcat/bregdcat-ap');
    const ids = (graph: Graph) => graph['@graph'].map((node) => node['@id']);
    for (const id of ids(dcat)) assert.ok(ids(breg).includes(id), `BRegDCAT-AP lacks ${id}`);
    const service = breg['@graph'].find((node) => types(node).includes('cpsv:PublicService'));
    assert.equal(service?.['@id'], 'https://demo.example.gov/services/cash-transfer-programme');
    assert.deepEqual(service?.['cpsv:produces'], {
      '@id': 'http://127.0.0.1:4242/metadata/datasets/social_protection',
    });
    assert.ok(!ids(dcat).includes(service?.['@id']), 'the base DCAT document carries no public service');
  });

  it('lists the RDF documents on the landing page', async () => {
    const landing = (await relay.get('/metadata', { as: 'health_planner' })).json() as {
      links: { rel: string; href: string; type: string }[];
    };
    const rdf = landing.links.filter((link) => link.type === 'application/ld+json');
    assert.deepEqual(
      rdf.map((link) => [link.rel, new URL(link.href).pathname]),
      [
        ['alternate', '/metadata/dcat'],
        ['alternate', '/metadata/dcat/bregdcat-ap'],
        ['describedby', '/metadata/shacl'],
        ['describedby', '/metadata/policies'],
        ['related', '/metadata/cpsv-ap'],
      ],
    );
  });
});

describe('a catalog that publishes neither DCAT nor SHACL', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-rdf-off-'));
  const manifest = join(dir, 'relay.metadata.yaml');
  let relay: TestRelay;
  before(async () => {
    const text = readFileSync(join(DEMO_DIR, 'relay.metadata.yaml'), 'utf8').replace(
      '  application_profiles:',
      '  standards: { dcat: false, shacl: false, json_schema: true }\n  application_profiles:',
    );
    writeFileSync(manifest, text);
    relay = await startDemoRelay({
      edit: (config) => config.replace('path: relay.metadata.yaml', `path: ${manifest}`),
    });
  });
  after(async () => {
    await relay.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 404 on the DCAT and SHACL routes and leaves them off the landing page', async () => {
    for (const path of [
      '/metadata/dcat',
      '/metadata/dcat/bregdcat-ap',
      '/metadata/shacl',
      '/metadata/datasets/civil_registry/entities/persons/shacl',
    ]) {
      assertProblem(await relay.get(path, { as: 'caseworker' }), 404, 'schema.unknown_resource');
    }
    // Scope is still checked first: a caller without any metadata scope learns nothing.
    assertProblem(await relay.get('/metadata/dcat', { as: 'operator' }), 403, 'auth.scope_denied');
    const landing = (await relay.get('/metadata', { as: 'caseworker' })).json() as {
      links: { href: string }[];
    };
    const paths = landing.links.map((link) => new URL(link.href).pathname);
    assert.ok(paths.includes('/metadata/policies') && paths.includes('/metadata/cpsv-ap'));
    assert.ok(!paths.some((path) => /dcat|shacl/.test(path)), paths.join(' '));
    assert.equal((await relay.get('/metadata/policies', { as: 'caseworker' })).statusCode, 200);
  });
});

describe('RDF documents without a manifest', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({
      edit: (text) => text.replace(/\nmetadata:\n {2}source:\n {4}path: relay\.metadata\.yaml\n/, '\n'),
    });
  });
  after(() => relay.close());

  it('describes the config: datasets served by the relay data API, no policies, no public services', async () => {
    const dcat = (await relay.get('/metadata/dcat', { as: 'caseworker' })).json() as Graph;
    const service = dcat['@graph'].find((node) => types(node).includes('dcat:DataService'));
    assert.equal(service?.['@id'], 'http://127.0.0.1:4242/v1/datasets');
    assert.deepEqual(service?.['dcat:servesDataset'], [
      { '@id': 'http://127.0.0.1:4242/metadata/datasets/civil_registry' },
      { '@id': 'http://127.0.0.1:4242/metadata/datasets/social_protection' },
    ]);
    const policies = (await relay.get('/metadata/policies', { as: 'caseworker' })).json() as Graph;
    assert.deepEqual(policies['@graph'], []);
    const services = (await relay.get('/metadata/cpsv-ap', { as: 'caseworker' })).json() as Graph;
    assert.deepEqual(services['@graph'], []);
    assertProblem(
      await relay.get('/metadata/datasets/civil_registry/policy', { as: 'caseworker' }),
      404,
      'schema.unknown_resource',
    );
  });
});

describe('aggregates in the DCAT catalogue', () => {
  let relay: TestRelay;
  before(async () => {
    // beds_by_district gets a metadata scope of its own (the analyst holds it, the catalog viewer does not).
    relay = await startDemoRelay({
      edit: (text) =>
        text.replace(
          '        temporal_field: opened_on\n        access:\n',
          '        temporal_field: opened_on\n        access:\n          metadata_scope: health_facilities:aggregate\n',
        ),
    });
  });
  after(() => relay.close());

  const aggregateDistributions = (graph: Graph) =>
    graph['@graph']
      .filter((node) => types(node).includes('dcat:Distribution'))
      .map((node) => (node['dcat:accessURL'] as { '@id': string })['@id'])
      .filter((url) => url.includes('/aggregates/'))
      .sort();

  it('publishes each aggregate as a JSON, a CSV and an SDMX-JSON distribution of its dataset', async () => {
    const dcat = (await relay.get('/metadata/dcat', { as: 'analyst' })).json() as Graph;
    const distributions = aggregateDistributions(dcat);
    assert.ok(distributions.length > 0 && distributions.length % 3 === 0, distributions.join('\n'));
    const persons = distributions.filter((url) => url.includes('/aggregates/persons_by_district?'));
    assert.deepEqual(persons, [
      'http://127.0.0.1:4242/v1/datasets/civil_registry/aggregates/persons_by_district?f=csv',
      'http://127.0.0.1:4242/v1/datasets/civil_registry/aggregates/persons_by_district?f=json',
      'http://127.0.0.1:4242/v1/datasets/civil_registry/aggregates/persons_by_district?f=sdmx-json',
    ]);
    const sdmx = dcat['@graph'].find((node) =>
      String(node['@id']).endsWith('/distributions/aggregate-persons_by_district-sdmx-json'),
    );
    assert.deepEqual(sdmx?.['dct:conformsTo'], {
      '@id': 'https://json.sdmx.org/2.1/sdmx-json-data-schema.json',
      '@type': 'dct:Standard',
    });
  });

  it('describes an aggregate only to callers holding its metadata scope', async () => {
    const viewer = aggregateDistributions(
      (await relay.get('/metadata/dcat', { as: 'catalog_viewer' })).json() as Graph,
    );
    assert.ok(viewer.some((url) => url.includes('/aggregates/payments_by_district?')));
    assert.ok(!viewer.some((url) => url.includes('/aggregates/beds_by_district?')), viewer.join('\n'));
  });
});
