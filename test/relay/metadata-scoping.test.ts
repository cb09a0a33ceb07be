// Every /metadata route under every demo persona: what each sees, that a hidden dataset answers exactly like an
// unknown one, that no body mentions what the caller cannot see, and conditional requests per scoped view.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Response } from 'light-my-request';
import { assertProblem } from '../helpers/http-checks.ts';
import { DEMO_DIR, type Persona, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

type DatasetId = 'civil_registry' | 'social_protection' | 'health_facilities';

const VISIBLE: Record<Persona, readonly DatasetId[]> = {
  catalog_viewer: ['civil_registry', 'social_protection', 'health_facilities'],
  caseworker: ['civil_registry', 'social_protection'],
  analyst: ['civil_registry', 'social_protection', 'health_facilities'],
  health_planner: ['health_facilities'],
  verifier_service: [],
  operator: [],
};
const PERSONAS = Object.keys(VISIBLE) as Persona[];

const DATASETS: Record<
  DatasetId,
  { entity: string; offering?: string; policy?: boolean; marks: readonly string[] }
> = {
  civil_registry: {
    entity: 'persons',
    offering: 'civil-person-record',
    policy: true,
    marks: [
      'civil_registry',
      '"persons"',
      'civil-person-record',
      'person-record-evidence',
      'policies/civil-registry',
      'codelists/sex',
    ],
  },
  social_protection: {
    entity: 'households',
    offering: 'sp-household-enrolment',
    policy: true,
    marks: [
      'social_protection',
      '"households"',
      '"payments"',
      'sp-household-enrolment',
      'poverty-band',
      'policies/social-protection',
    ],
  },
  health_facilities: {
    entity: 'facilities',
    marks: ['health_facilities', '"facilities"', 'facility-type', 'codelists/ownership'],
  },
};

/** Catalog-wide routes: 200 for anyone holding some metadata scope. */
const CATALOG_ROUTES = [
  '/metadata',
  '/metadata/catalog',
  '/metadata/profiles',
  '/metadata/profiles/dcat-ap',
  '/metadata/datasets',
  '/metadata/ogc/records',
  '/metadata/evidence-offerings',
  '/metadata/dcat',
  '/metadata/dcat/bregdcat-ap',
  '/metadata/shacl',
  '/metadata/policies',
  '/metadata/cpsv-ap',
];

/** Routes naming a dataset: 403 unless it is visible, exactly as for a dataset that does not exist. */
const datasetRoutes = (ds: string, entity: string) => [
  `/metadata/datasets/${ds}`,
  `/metadata/datasets/${ds}/entities`,
  `/metadata/datasets/${ds}/entities/${entity}`,
  `/metadata/datasets/${ds}/entities/${entity}/schema`,
  `/metadata/schema/${ds}/${entity}/schema.json`,
  `/metadata/datasets/${ds}/entities/${entity}/shacl`,
  ...(DATASETS[ds as DatasetId]?.policy ? [`/metadata/datasets/${ds}/policy`] : []),
];

/** A problem body without what legitimately differs between two requests: the request id and the named id. */
function problemShape(response: Response, name: string): string {
  const body = response.json() as Record<string, unknown>;
  delete body.request_id;
  return `${response.statusCode} ${JSON.stringify(body).replaceAll(name, '{id}')}`;
}

describe('metadata route scoping', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('answers 401 without a credential and 403 to callers holding no metadata scope, on every route', async () => {
    const all = [
      ...CATALOG_ROUTES,
      ...datasetRoutes('civil_registry', 'persons'),
      '/metadata/evidence-offerings/x',
    ];
    for (const path of all) {
      assertProblem(await relay.get(path), 401, 'auth.missing_credential');
      for (const persona of ['verifier_service', 'operator'] as const) {
        assertProblem(await relay.get(path, { as: persona }), 403, 'auth.scope_denied');
      }
    }
  });

  for (const persona of PERSONAS.filter((p) => VISIBLE[p].length > 0)) {
    const visible = VISIBLE[persona];
    const hidden = (Object.keys(DATASETS) as DatasetId[]).filter((ds) => !visible.includes(ds));

    it(`${persona}: catalog-wide documents list only visible datasets and mention nothing hidden`, async () => {
      for (const path of CATALOG_ROUTES) {
        const response = await relay.get(path, { as: persona });
        assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 200)}`);
        for (const ds of hidden)
          for (const mark of DATASETS[ds].marks)
            assert.ok(!response.body.includes(mark), `${path} leaks ${mark}`);
      }
      const datasets = (await relay.get('/metadata/datasets', { as: persona })).json() as {
        datasets: { id: string }[];
      };
      assert.deepEqual(
        datasets.datasets.map((dataset) => dataset.id),
        visible,
      );
      const records = (await relay.get('/metadata/ogc/records', { as: persona })).json() as {
        features: { id: string }[];
      };
      assert.deepEqual(
        records.features.map((feature) => feature.id),
        visible,
      );
      const offerings = (await relay.get('/metadata/evidence-offerings', { as: persona })).json() as {
        evidence_offerings: { id: string }[];
      };
      assert.deepEqual(
        offerings.evidence_offerings.map((offering) => offering.id),
        visible.flatMap((ds) => DATASETS[ds].offering ?? []),
      );
    });

    it(`${persona}: a hidden dataset, its record and its offerings answer exactly like unknown ones`, async () => {
      for (const ds of visible) {
        const { entity, offering } = DATASETS[ds];
        for (const path of datasetRoutes(ds, entity)) {
          const response = await relay.get(path, { as: persona });
          assert.equal(response.statusCode, 200, `${path}: ${response.body.slice(0, 200)}`);
        }
        assert.equal((await relay.get(`/metadata/ogc/records/${ds}`, { as: persona })).statusCode, 200);
        if (offering)
          assert.equal(
            (await relay.get(`/metadata/evidence-offerings/${offering}`, { as: persona })).statusCode,
            200,
          );
      }
      const unknown = async (path: string) => problemShape(await relay.get(path, { as: persona }), 'nope');
      for (const ds of hidden) {
        const { entity, offering } = DATASETS[ds];
        const asUnknown = datasetRoutes(ds, entity).map((path) =>
          path.replace(new RegExp(`/${ds}(?=/|$)`), '/nope'),
        );
        for (const [i, path] of datasetRoutes(ds, entity).entries()) {
          const response = await relay.get(path, { as: persona });
          assertProblem(response, 403, 'auth.scope_denied');
          assert.equal(problemShape(response, ds), await unknown(asUnknown[i] as string), path);
        }
        const record = await relay.get(`/metadata/ogc/records/${ds}`, { as: persona });
        assertProblem(record, 404, 'schema.unknown_resource');
        assert.equal(problemShape(record, ds), await unknown('/metadata/ogc/records/nope'));
        if (offering) {
          const response = await relay.get(`/metadata/evidence-offerings/${offering}`, { as: persona });
          assertProblem(response, 404, 'offering.not_found');
          assert.equal(problemShape(response, offering), await unknown('/metadata/evidence-offerings/nope'));
        }
      }
    });

    it(`${persona}: every document revalidates to 304 with the private caching headers`, async () => {
      const paths = [
        ...CATALOG_ROUTES,
        ...visible.flatMap((ds) => [
          ...datasetRoutes(ds, DATASETS[ds].entity),
          `/metadata/ogc/records/${ds}`,
        ]),
      ];
      for (const path of paths) {
        const first = await relay.get(path, { as: persona });
        const etag = first.headers.etag as string;
        assert.match(etag, /^"sha256:[0-9a-f]{64}"$/, path);
        assert.equal(first.headers['cache-control'], 'private, no-store');
        assert.equal(first.headers.vary, 'Authorization, X-Api-Key, Accept');
        const again = await relay.get(path, { as: persona, headers: { 'if-none-match': etag } });
        assert.equal(again.statusCode, 304, path);
        assert.equal(again.body, '');
        assert.equal(again.headers.etag, etag);
        assert.equal(again.headers['cache-control'], 'private, no-store');
        assert.equal(again.headers.vary, 'Authorization, X-Api-Key, Accept');
      }
    });
  }

  it('names the credential headers in Vary on refusals too (401, 404 for a document out of view)', async () => {
    const refused = [
      await relay.get('/metadata/catalog'),
      await relay.get('/metadata/datasets/civil_registry', { as: 'health_planner' }),
      await relay.get('/metadata/datasets/no_such_dataset', { as: 'health_planner' }),
    ];
    for (const response of refused) {
      assert.ok(response.statusCode >= 400, response.body);
      const vary = String(response.headers.vary)
        .split(',')
        .map((name) => name.trim().toLowerCase());
      assert.ok(
        vary.includes('authorization') && vary.includes('x-api-key'),
        `${response.statusCode}: ${vary}`,
      );
    }
  });

  it('gives each scoped view its own ETag, shared only by callers who see the same', async () => {
    const etag = async (persona: Persona) =>
      (await relay.get('/metadata/catalog', { as: persona })).headers.etag;
    assert.equal(await etag('catalog_viewer'), await etag('analyst'));
    assert.notEqual(await etag('catalog_viewer'), await etag('caseworker'));
    assert.notEqual(await etag('caseworker'), await etag('health_planner'));
    // Another view's validator never yields a 304.
    const foreign = await relay.get('/metadata/catalog', {
      as: 'health_planner',
      headers: { 'if-none-match': (await etag('catalog_viewer')) as string },
    });
    assert.equal(foreign.statusCode, 200);
  });

  it('matches weak, listed and wildcard validators', async () => {
    const path = '/metadata/evidence-offerings';
    const etag = (await relay.get(path, { as: 'caseworker' })).headers.etag as string;
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await relay.get(path, { as: 'caseworker', headers: { 'if-none-match': header } });
      assert.equal(response.statusCode, 304, header);
    }
    const stale = await relay.get(path, { as: 'caseworker', headers: { 'if-none-match': '"sha256:00"' } });
    assert.equal(stale.statusCode, 200);
  });
});

describe('metadata answers of a caller do not depend on datasets it cannot see', () => {
  // A catalog-level item no dataset reaches (a codelist nothing uses), and a relay that adds a dataset hidden from
  // the catalog viewer. The viewer sees every dataset of the first relay but not of the second: its answers and
  // ETags must be the same on both, or they would tell it that another dataset exists (or changed).
  const dir = mkdtempSync(join(tmpdir(), 'ambit-metadata-hidden-'));
  const demoManifest = readFileSync(join(DEMO_DIR, 'relay.metadata.yaml'), 'utf8').replace(
    /^codelists:\n/m,
    'codelists:\n  - { id: unused-scale, scheme_iri: demo:codelists/unused-scale, title: Unused, concepts: [{ code: one }] }\n',
  );
  // A copy of the health facilities dataset (the last of both files) under another id and scope, held by no key.
  const hide = (block: string) =>
    block
      .replaceAll('health_facilities:', 'zz_hidden_registry:')
      .replace('id: health_facilities', 'id: zz_hidden_registry')
      .replaceAll('hf_facilities', 'zz_hidden_table');
  const lastDataset = (text: string) => text.slice(text.indexOf('  - id: health_facilities'));
  writeFileSync(join(dir, 'alone.yaml'), demoManifest);
  writeFileSync(join(dir, 'beside.yaml'), `${demoManifest}\n${hide(lastDataset(demoManifest))}`);
  const withManifest = (name: string) => (text: string) =>
    text.replace('path: relay.metadata.yaml', `path: ${join(dir, name)}`);
  const withHiddenDataset = (text: string) =>
    `${withManifest('beside.yaml')(text)}\n${hide(lastDataset(text))}`;
  let alone: TestRelay;
  let beside: TestRelay;
  before(async () => {
    alone = await startDemoRelay({ edit: withManifest('alone.yaml') });
    beside = await startDemoRelay({ edit: withHiddenDataset });
  });
  after(async () => {
    await alone.close();
    await beside.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every catalog-wide document byte for byte the same, with the same ETag', async () => {
    // The copy is served, and described to nobody.
    assert.ok(beside.relay.runtime.catalog.datasets.has('zz_hidden_registry'));
    assert.ok(!alone.relay.runtime.catalog.datasets.has('zz_hidden_registry'));
    for (const persona of ['catalog_viewer', 'analyst', 'health_planner'] as const) {
      for (const path of CATALOG_ROUTES) {
        const one = await alone.get(path, { as: persona });
        const other = await beside.get(path, { as: persona });
        assert.equal(one.statusCode, 200, `${persona} ${path}`);
        assert.equal(other.body, one.body, `${persona} ${path}`);
        assert.equal(other.headers.etag, one.headers.etag, `${persona} ${path}`);
      }
    }
  });
});
