// The metadata routes' contracts: evidence offerings (fields, filters, detail), media types, the public API
// catalog, no verification route, audit records, and rendering from the config when no manifest is named.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { assertProblem, assertSecurityHeaders } from '../helpers/http-checks.ts';
import {
  DEMO_DIR,
  demoConfigText,
  demoEnv,
  startDemoRelay,
  type TestRelay,
} from '../helpers/relay-harness.ts';

const OFFERINGS = '/metadata/evidence-offerings';
const NO_MANIFEST = (text: string) =>
  text.replace(/\nmetadata:\n {2}source:\n {4}path: relay\.metadata\.yaml\n/, '\n');

describe('evidence offering routes', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  const ids = async (query: string, as: 'catalog_viewer' | 'caseworker' = 'catalog_viewer') => {
    const response = await relay.get(`${OFFERINGS}${query}`, { as });
    assert.equal(response.statusCode, 200, response.body);
    return (response.json() as { evidence_offerings: { id: string }[] }).evidence_offerings.map((o) => o.id);
  };

  it('lists offerings with every field of the offering table, pointing at the verifier', async () => {
    const response = await relay.get(OFFERINGS, { as: 'catalog_viewer' });
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    const [person] = (response.json() as { evidence_offerings: Record<string, unknown>[] })
      .evidence_offerings;
    assert.deepEqual(person, {
      id: 'civil-person-record',
      title: 'Civil registry person record',
      iri: 'https://demo.example.gov/evidence-offerings/person-record',
      description:
        'Whether a person is registered and alive, verified by the demo verifier against this relay.',
      dataset_id: 'civil_registry',
      entity: 'persons',
      evidence_type: {
        id: 'person-record-evidence',
        iri: 'https://demo.example.gov/evidence-types/person-record',
        name: 'Civil registry person record evidence',
      },
      evidence_type_iri: 'https://demo.example.gov/evidence-types/person-record',
      issuing_authority: {
        id: 'civil-registration-office',
        iri: 'https://demo.example.gov/authorities/civil-registration-office',
        name: 'Demo Civil Registration Office',
        country: 'ZZ',
      },
      jurisdiction: { country: 'ZZ', region: null },
      level_of_assurance: 'substantial',
      lookup_keys: ['national_id'],
      policy: { purpose: ['https://demo.example.gov/purpose/benefit-eligibility'] },
      procedure_contexts: ['cash-transfer-programme'],
      requirement_iris: ['https://demo.example.gov/requirements/proof-of-identity'],
      information_concepts: [
        'https://schema.org/givenName',
        'https://schema.org/familyName',
        'https://schema.org/birthDate',
      ],
      verification_request_schema_url:
        'http://127.0.0.1:4242/metadata/schema/civil_registry/persons/schema.json',
      access: {
        kind: 'verifier',
        ruleset: 'person-is-alive',
        endpoint_url: 'http://127.0.0.1:4343/v1/evaluations',
        discovery_url: 'http://127.0.0.1:4343/.well-known/evidence-service',
        conforms_to: 'https://ambit.dev/spec/verifier/evaluations/v1',
      },
    });
  });

  it('serves one offering by id, equal to its list entry, and its schema URL resolves on the relay', async () => {
    const list = (await relay.get(OFFERINGS, { as: 'caseworker' })).json() as {
      evidence_offerings: { id: string; verification_request_schema_url: string }[];
    };
    for (const offering of list.evidence_offerings) {
      const one = await relay.get(`${OFFERINGS}/${offering.id}`, { as: 'caseworker' });
      assert.deepEqual(one.json(), offering);
      const schema = await relay.get(new URL(offering.verification_request_schema_url).pathname, {
        as: 'caseworker',
      });
      assert.equal(schema.statusCode, 200);
      assert.equal(schema.headers['content-type'], 'application/schema+json');
      assert.equal(schema.json().$id, offering.verification_request_schema_url);
    }
    assertProblem(await relay.get(`${OFFERINGS}/nope`, { as: 'caseworker' }), 404, 'offering.not_found');
  });

  it('filters by evidence type (id or IRI), country and procedure context', async () => {
    assert.deepEqual(await ids(''), ['civil-person-record', 'sp-household-enrolment']);
    assert.deepEqual(await ids('?evidence_type=household-enrolment-evidence'), ['sp-household-enrolment']);
    assert.deepEqual(
      await ids(
        `?evidence_type=${encodeURIComponent('https://demo.example.gov/evidence-types/person-record')}`,
      ),
      ['civil-person-record'],
    );
    assert.deepEqual(await ids('?country=zz&procedure_context=cash-transfer-programme'), [
      'civil-person-record',
      'sp-household-enrolment',
    ]);
    assert.deepEqual(await ids('?country=FR'), []);
    assert.deepEqual(await ids('?procedure_context=other'), []);
  });

  it('rejects unknown, repeated and empty filters, before any conditional answer', async () => {
    const etag = (await relay.get(OFFERINGS, { as: 'caseworker' })).headers.etag as string;
    const conditional = { 'if-none-match': etag };
    const bad = [
      [`${OFFERINGS}?countries=ZZ`, 'filter.not_allowed'],
      [`${OFFERINGS}?country=ZZ&country=FR`, 'filter.invalid_value'],
      [`${OFFERINGS}?country=`, 'filter.invalid_value'],
    ] as const;
    for (const [path, code] of bad) {
      assertProblem(await relay.get(path, { as: 'caseworker', headers: conditional }), 400, code);
    }
  });

  it('has no verification route: offerings only describe', async () => {
    for (const [url, status] of [
      [`${OFFERINGS}/civil-person-record/verifications`, 404],
      [`${OFFERINGS}/civil-person-record`, 405],
      [OFFERINGS, 405],
    ] as const) {
      const response = await relay.inject({
        method: 'POST',
        url,
        headers: {
          authorization: 'Bearer test-key-catalog-viewer-000000000001',
          'content-type': 'application/json',
        },
        payload: '{}',
      });
      // Offerings are read only: no such path, or a path that answers GET alone.
      if (status === 404) assertProblem(response, 404, 'http.not_found');
      else {
        assertProblem(response, 405, 'http.method_not_allowed');
        assert.equal(response.headers.allow, 'GET, HEAD, OPTIONS');
      }
    }
  });

  it('serves schemas as application/schema+json and records as application/geo+json', async () => {
    const schema = await relay.get('/metadata/datasets/social_protection/entities/payments/schema', {
      as: 'caseworker',
    });
    assert.equal(schema.headers['content-type'], 'application/schema+json');
    const same = await relay.get('/metadata/schema/social_protection/payments/schema.json', {
      as: 'caseworker',
    });
    assert.equal(same.body, schema.body);
    const form = await relay.get('/metadata/forms/cash-transfer-application/schema.json', {
      as: 'caseworker',
    });
    assert.equal(form.headers['content-type'], 'application/schema+json');
    assertProblem(
      await relay.get('/metadata/forms/nope/schema.json', { as: 'caseworker' }),
      404,
      'schema.unknown_resource',
    );
    const records = await relay.get('/metadata/ogc/records', { as: 'caseworker' });
    assert.equal(records.headers['content-type'], 'application/geo+json');
    assertProblem(
      await relay.get('/metadata/profiles/nope', { as: 'caseworker' }),
      404,
      'schema.unknown_resource',
    );
    assertProblem(
      await relay.get('/metadata/datasets/civil_registry/entities/nope', { as: 'caseworker' }),
      404,
      'schema.unknown_resource',
    );
  });

  it('links the landing page to each catalog-wide document, all of which resolve', async () => {
    const landing = (await relay.get('/metadata', { as: 'health_planner' })).json() as {
      links: { rel: string; href: string }[];
    };
    const rels = landing.links.map((link) => link.rel);
    assert.deepEqual(rels.slice(0, 2), ['self', 'api-catalog']);
    for (const link of landing.links) {
      const response = await relay.get(new URL(link.href).pathname, { as: 'health_planner' });
      assert.equal(response.statusCode, 200, link.href);
    }
  });

  it('records metadata reads in the audit trail with the scopes they relied on', async () => {
    await relay.get('/metadata/datasets/social_protection', { as: 'caseworker' });
    await relay.get(`${OFFERINGS}?country=ZZ`, { as: 'caseworker' });
    const records = relay.auditRecords();
    const dataset = records.find((r) => r.path === '/metadata/datasets/social_protection');
    assert.equal(dataset?.endpoint_kind, 'metadata');
    assert.equal(dataset?.dataset_id, 'social_protection');
    assert.deepEqual(dataset?.scopes_used, ['social_protection:metadata']);
    const list = records.filter((r) => r.path === OFFERINGS).at(-1);
    assert.equal(list?.principal_id, 'caseworker');
    assert.deepEqual(list?.scopes_used, ['civil_registry:metadata', 'social_protection:metadata']);
  });
});

describe('the RFC 9727 API catalog', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('is public on GET and HEAD, with its media type, Link header, ETag and security headers', async () => {
    const response = await relay.get('/.well-known/api-catalog');
    assert.equal(response.statusCode, 200);
    assert.equal(
      response.headers['content-type'],
      'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"',
    );
    assert.equal(response.headers.link, '</.well-known/api-catalog>; rel="api-catalog"');
    assertSecurityHeaders(response);
    assert.doesNotMatch(response.body, /civil_registry|social_protection|health_facilities/);
    const head = await relay.inject({ method: 'HEAD', url: '/.well-known/api-catalog' });
    assert.equal(head.statusCode, 200);
    assert.equal(head.body, '');
    assert.equal(head.headers.link, response.headers.link);
    assert.equal(head.headers.etag, response.headers.etag);
    const again = await relay.get('/.well-known/api-catalog', {
      headers: { 'if-none-match': response.headers.etag as string },
    });
    assert.equal(again.statusCode, 304);
  });
});

describe('metadata without a manifest', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay({ edit: NO_MANIFEST });
  });
  after(() => relay.close());

  it('renders the catalog, datasets and schemas from the relay config', async () => {
    const catalog = (await relay.get('/metadata/catalog', { as: 'caseworker' })).json() as Record<
      string,
      unknown
    >;
    assert.equal(catalog.source, 'runtime_config');
    assert.equal(catalog.title, 'Ambit demo registries');
    assert.deepEqual(
      (catalog.datasets as { id: string }[]).map((dataset) => dataset.id),
      ['civil_registry', 'social_protection'],
    );
    const entity = (
      await relay.get('/metadata/datasets/health_facilities/entities/facilities', {
        as: 'health_planner',
      })
    ).json() as { fields: { name: string; unit: string | null }[] };
    assert.equal(entity.fields.find((field) => field.name === 'latitude')?.unit, 'degree');
    const offerings = await relay.get(OFFERINGS, { as: 'caseworker' });
    assert.deepEqual(offerings.json(), { evidence_offerings: [] });
  });
});

describe('a relay whose manifest does not bind', () => {
  const issuesOf = (edit: (text: string) => string) => {
    try {
      loadRelayConfigText(demoConfigText('audit.jsonl', edit), demoEnv(), DEMO_DIR);
    } catch (error) {
      if (error instanceof ConfigError) return error.issues.map((issue) => `${issue.code} @ ${issue.path}`);
      throw error;
    }
    assert.fail('expected the config to be rejected');
  };

  it('refuses to start on a malformed pin or an unbound lookup key', () => {
    assert.deepEqual(
      issuesOf((text) =>
        text.replace('path: relay.metadata.yaml', 'path: relay.metadata.yaml\n    digest: sha256:bad'),
      ),
      ['metadata.manifest.digest_invalid @ metadata.source.digest'],
    );
    // national_id stops being an eq filter: the offering's lookup key no longer binds.
    const unbound = (text: string) =>
      text
        .replace('required_filters: [person_id, national_id]', 'required_filters: [person_id]')
        .replace('- { field: national_id, ops: [eq] }', '- { field: national_id, ops: [in] }');
    assert.deepEqual(issuesOf(unbound), [
      'runtime.binding.filter_missing @ manifest.datasets.0.evidence_offerings.0.lookup_keys.0',
    ]);
  });
});
