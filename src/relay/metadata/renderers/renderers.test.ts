// JSON renderers over the demo manifest: the offering table, JSON Schemas that validate real records, filters,
// profiles, OGC records and the API catalog in both link styles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadManifestFile } from '../load-manifest.ts';
import { buildModelFromManifest } from '../model/build-model-from-manifest.ts';
import { relayMetadataLinks, staticMetadataLinks } from '../model/metadata-links.ts';
import { renderApiCatalog } from './render-api-catalog.ts';
import { renderEntityJsonSchema } from './render-entity-json-schema.ts';
import {
  allOfferings,
  filterOfferings,
  renderEvidenceOffering,
  renderEvidenceOfferingList,
} from './render-evidence-offerings.ts';
import { renderFormJsonSchema } from './render-form-json-schema.ts';
import { renderOgcRecord } from './render-ogc-records.ts';
import { renderProfile } from './render-profiles.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const manifestPath = fileURLToPath(new URL('../../../../demo/relay.metadata.yaml', import.meta.url));
const model = buildModelFromManifest(loadManifestFile(manifestPath).manifest);
const links = relayMetadataLinks(model.catalog.baseUrl);

/** The evidence offering table of the interface spec, in its order. */
const OFFERING_FIELDS = [
  'id',
  'title',
  'iri',
  'description',
  'dataset_id',
  'entity',
  'evidence_type',
  'evidence_type_iri',
  'issuing_authority',
  'jurisdiction',
  'level_of_assurance',
  'lookup_keys',
  'policy',
  'procedure_contexts',
  'requirement_iris',
  'information_concepts',
  'verification_request_schema_url',
  'access',
];

describe('renderEvidenceOffering', () => {
  it('emits exactly the fields of the offering table, in order, with their types', () => {
    for (const offering of allOfferings(model)) {
      const body = renderEvidenceOffering(offering);
      assert.deepEqual(Object.keys(body), OFFERING_FIELDS);
      for (const key of [
        'id',
        'title',
        'iri',
        'description',
        'dataset_id',
        'entity',
        'evidence_type_iri',
      ] as const)
        assert.equal(typeof body[key], 'string', key);
      assert.deepEqual(Object.keys(body.evidence_type), ['id', 'iri', 'name']);
      assert.equal(body.evidence_type.iri, body.evidence_type_iri);
      assert.deepEqual(Object.keys(body.issuing_authority), ['id', 'iri', 'name', 'country']);
      assert.match(body.issuing_authority.country, /^[A-Z]{2}$/);
      assert.deepEqual(Object.keys(body.jurisdiction), ['country', 'region']);
      assert.equal(typeof body.level_of_assurance, 'string');
      assert.ok(body.lookup_keys.length > 0);
      assert.deepEqual(Object.keys(body.policy), ['purpose']);
      for (const list of [body.procedure_contexts, body.requirement_iris, body.information_concepts])
        assert.ok(Array.isArray(list));
      assert.match(
        body.verification_request_schema_url ?? '',
        /\/metadata\/schema\/[a-z_]+\/[a-z_]+\/schema\.json$/,
      );
      assert.deepEqual(Object.keys(body.access), [
        'kind',
        'ruleset',
        'endpoint_url',
        'discovery_url',
        'conforms_to',
      ]);
      assert.equal(body.access.kind, 'verifier');
      assert.ok(body.access.endpoint_url !== null || body.access.discovery_url !== null);
    }
  });

  it('carries no verification material: no hashes, receipts or rows', () => {
    const text = JSON.stringify(renderEvidenceOfferingList(allOfferings(model)));
    assert.doesNotMatch(text, /hash|receipt|verification_id|"data"/i);
  });
});

describe('filterOfferings', () => {
  const all = allOfferings(model);
  const ids = (filters: Parameters<typeof filterOfferings>[1]) =>
    filterOfferings(all, filters).map((o) => o.id);

  it('matches the evidence type by id or IRI, the country case-insensitively, and the procedure context', () => {
    assert.deepEqual(ids({}), ['civil-person-record', 'sp-household-enrolment']);
    assert.deepEqual(ids({ evidenceType: 'person-record-evidence' }), ['civil-person-record']);
    assert.deepEqual(ids({ evidenceType: 'https://demo.example.gov/evidence-types/household-enrolment' }), [
      'sp-household-enrolment',
    ]);
    assert.deepEqual(ids({ country: 'zz' }), ['civil-person-record', 'sp-household-enrolment']);
    assert.deepEqual(ids({ country: 'FR' }), []);
    assert.deepEqual(
      ids({ procedureContext: 'cash-transfer-programme', evidenceType: 'person-record-evidence' }),
      ['civil-person-record'],
    );
    assert.deepEqual(ids({ procedureContext: 'nope' }), []);
  });
});

describe('renderEntityJsonSchema', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const persons = model.datasets[0]?.entities[0];
  const households = model.datasets[1]?.entities[0];
  if (!persons || !households) throw new Error('demo entities');
  const schema = renderEntityJsonSchema(model, persons, links);

  it('is a valid Draft 2020-12 schema at the schema URL the offerings name', () => {
    assert.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors));
    assert.equal(schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(schema.$id, allOfferings(model)[0]?.verificationRequestSchemaUrl);
  });

  it('accepts a demo record and rejects wrong types, unknown codes and extra members', () => {
    const validate = ajv.compile(schema);
    const record = {
      person_id: 'per-10001',
      national_id: 'FAKE-000001',
      given_name: 'Ada',
      family_name: 'Example',
      birth_date: '1980-02-29',
      sex: 'female',
      district: 'dunmere',
      deceased: false,
    };
    assert.equal(validate(record), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...record, sex: 'unknown' }), false);
    assert.equal(validate({ ...record, birth_date: '29/02/1980' }), false);
    assert.equal(validate({ ...record, deceased: 'no' }), false);
    assert.equal(validate({ ...record, phone: '+1' }), false);
    const { person_id: _dropped, ...withoutKey } = record;
    assert.equal(validate(withoutKey), false);
  });

  it('lets optional fields be null, codes included', () => {
    const validate = ajv.compile(renderEntityJsonSchema(model, households, links));
    const record = {
      household_id: 'hh-1',
      district: 'd',
      municipality: 'm',
      household_size: 3,
      poverty_band: 'low',
      enrollment_status: 'pending',
      enrolled_on: null,
      head_of_household_person_id: 'per-1',
    };
    assert.equal(validate(record), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...record, household_size: 2.5 }), false);
  });
});

describe('renderFormJsonSchema', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const form = model.forms[0];
  if (!form) throw new Error('demo form');
  const schema = renderFormJsonSchema(model, form, links);

  it('flattens plain fields, turns repeatable sections into bounded arrays, and validates submissions', () => {
    assert.equal(ajv.validateSchema(schema), true, JSON.stringify(ajv.errors));
    assert.deepEqual(schema.required, ['nationalId', 'birthDate', 'members']);
    const validate = ajv.compile(schema);
    const submission = {
      nationalId: 'FAKE-1',
      birthDate: '1990-01-01',
      members: [{ role: 'head', ageBand: '18_59' }],
    };
    assert.equal(validate(submission), true, JSON.stringify(validate.errors));
    assert.equal(validate({ ...submission, members: [] }), false);
    assert.equal(validate({ ...submission, members: [{ role: 'boss', ageBand: '18_59' }] }), false);
    assert.equal(
      validate({ ...submission, members: Array(21).fill({ role: 'child', ageBand: '0_4' }) }),
      false,
    );
  });
});

describe('profiles, records and the API catalog', () => {
  it('finds profiles of either kind by id', () => {
    assert.deepEqual(renderProfile(model, 'dcat-ap'), {
      kind: 'application_profile',
      id: 'dcat-ap',
      version: '3.0.1',
    });
    assert.equal(renderProfile(model, 'ambit-demo-discovery')?.kind, 'profile');
    assert.equal(renderProfile(model, 'nope'), undefined);
  });

  it('renders link-free records with the manifest dates as Records time', () => {
    const civil = model.datasets[0];
    if (!civil) throw new Error('demo dataset');
    const record = renderOgcRecord(model, civil);
    assert.equal(record.geometry, null);
    assert.deepEqual(record.time, { date: '2025-06-30' });
    assert.equal(record.properties.created, '2025-01-15T00:00:00Z');
    assert.ok(!('links' in record));
  });

  it('names fixed entry points only, relay and static alike', () => {
    const relay = renderApiCatalog(model, links);
    assert.equal(relay.linkset[0]?.anchor, 'http://127.0.0.1:4242/.well-known/api-catalog');
    assert.equal(relay.linkset[1]?.anchor, 'http://127.0.0.1:4242/v1/datasets');
    const published = renderApiCatalog(model, staticMetadataLinks('https://static.example.org'));
    assert.equal(published.linkset.length, 1);
    assert.deepEqual(
      ((published.linkset[0]?.item ?? []) as { href: string }[]).map((link) => link.href),
      [
        'https://static.example.org/metadata/catalog.json',
        'https://static.example.org/metadata/evidence-offerings.json',
      ],
    );
    for (const body of [relay, published])
      assert.doesNotMatch(JSON.stringify(body), /civil_registry|social_protection/);
  });
});
