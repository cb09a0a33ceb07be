// Model builders: from the demo manifest (bound to the demo config) and from the demo config alone.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEMO_DIR, demoEnv } from '../../../../test/helpers/relay-harness.ts';
import { buildCatalog } from '../../catalog/build-catalog.ts';
import { loadRelayConfig } from '../../config/load-relay-config.ts';
import { buildModelFromConfig } from './build-model-from-config.ts';
import { buildModelFromManifest } from './build-model-from-manifest.ts';

const loaded = loadRelayConfig(join(DEMO_DIR, 'relay.yaml'), demoEnv());
const catalog = buildCatalog(loaded.config);
const manifest = loaded.manifest?.manifest;
if (!manifest) throw new Error('the demo config names a manifest');

describe('buildModelFromManifest', () => {
  const model = buildModelFromManifest(manifest, { runtime: catalog });

  it('expands compact IRIs with the manifest vocabularies and keeps translations', () => {
    assert.equal(model.source, 'manifest');
    assert.equal(
      model.catalog.publisher.authorityType,
      'http://purl.org/adms/publishertype/NationalAuthority',
    );
    assert.equal(model.catalog.title.text, 'Ambit demo registries');
    assert.deepEqual(Object.keys(model.catalog.title.languages), ['en', 'fr']);
    const persons = model.datasets[0]?.entities[0];
    assert.equal(persons?.conceptUri, 'https://schema.org/Person');
    assert.deepEqual(persons?.fields.find((f) => f.name === 'given_name')?.concepts, [
      'https://schema.org/givenName',
    ]);
  });

  it('computes each offering from its evidence type, requirements and entity', () => {
    const offering = model.datasets[0]?.offerings[0];
    assert.ok(offering);
    assert.equal(offering.id, 'civil-person-record');
    assert.deepEqual(offering.evidenceType, {
      id: 'person-record-evidence',
      iri: 'https://demo.example.gov/evidence-types/person-record',
      name: 'Civil registry person record evidence',
    });
    assert.deepEqual(offering.requirementIris, ['https://demo.example.gov/requirements/proof-of-identity']);
    assert.deepEqual(offering.informationConcepts, [
      'https://schema.org/givenName',
      'https://schema.org/familyName',
      'https://schema.org/birthDate',
    ]);
    assert.equal(
      offering.verificationRequestSchemaUrl,
      'http://127.0.0.1:4242/metadata/schema/civil_registry/persons/schema.json',
    );
    assert.deepEqual(offering.policy.purpose, ['https://demo.example.gov/purpose/benefit-eligibility']);
    assert.equal(offering.access.kind, 'verifier');
    // No jurisdiction in the manifest: the issuing authority's country, no region.
    assert.deepEqual(model.datasets[1]?.offerings[0]?.jurisdiction, { country: 'ZZ', region: null });
    assert.equal(model.datasets[1]?.offerings[0]?.access.endpointUrl, null);
  });

  it('takes the base URL override for every link it builds', () => {
    const moved = buildModelFromManifest(manifest, { baseUrl: 'https://metadata.example.org/' });
    assert.equal(moved.catalog.baseUrl, 'https://metadata.example.org');
    assert.equal(
      moved.datasets[0]?.offerings[0]?.verificationRequestSchemaUrl,
      'https://metadata.example.org/metadata/schema/civil_registry/persons/schema.json',
    );
    assert.equal(moved.datasets[0]?.iri, 'https://metadata.example.org/metadata/datasets/civil_registry');
  });

  it('gives codelist concepts an IRI under their scheme and resolves form data types', () => {
    const sex = model.codelists.find((codelist) => codelist.id === 'sex');
    assert.equal(sex?.schemeIri, 'https://vocab.example.org/ambit-demo/codelists/sex');
    assert.equal(sex?.concepts[0]?.iri, 'https://vocab.example.org/ambit-demo/codelists/sex/female');
    const form = model.forms[0];
    assert.equal(form?.fields[1]?.dataType, 'date');
    assert.equal(form?.sections[0]?.repeatable, true);
  });

  it('fills sensitivity from the bound relay field when the manifest is silent', () => {
    const households = model.datasets[1]?.entities[0];
    assert.equal(households?.fields.find((f) => f.name === 'household_id')?.sensitive, false);
    assert.equal(
      model.datasets[0]?.entities[0]?.fields.find((f) => f.name === 'national_id')?.sensitive,
      true,
    );
  });

  it('is deeply frozen', () => {
    assert.ok(Object.isFrozen(model));
    assert.ok(Object.isFrozen(model.datasets[0]?.offerings[0]?.access));
    assert.throws(() => {
      (model.datasets as unknown as unknown[]).push({});
    }, TypeError);
  });
});

describe('buildModelFromConfig', () => {
  const model = buildModelFromConfig(catalog);

  it('describes every configured dataset, entity and public field, and nothing private', () => {
    assert.equal(model.source, 'runtime_config');
    assert.equal(model.catalog.id, 'ambit-relay-demo');
    assert.deepEqual(
      model.datasets.map((dataset) => [dataset.id, dataset.entities.map((entity) => entity.name)]),
      [
        ['civil_registry', ['persons']],
        ['social_protection', ['households', 'members', 'payments']],
        ['health_facilities', ['facilities']],
      ],
    );
    const persons = model.datasets[0]?.entities[0];
    assert.equal(persons?.primaryKey, 'person_id');
    assert.ok(
      !persons?.fields.some((field) => field.name === 'street_address'),
      'storage-only columns stay private',
    );
    const facilities = model.datasets[2]?.entities[0];
    assert.deepEqual(
      facilities?.fields.find((field) => field.name === 'latitude'),
      {
        name: 'latitude',
        title: undefined,
        description: undefined,
        type: 'number',
        required: true,
        nullable: false,
        sensitive: false,
        concepts: ['https://schema.org/latitude'],
        codelist: undefined,
        unit: 'degree',
        language: undefined,
      },
    );
  });

  it('maps relationship kinds to cardinalities', () => {
    const social = model.datasets[1];
    assert.deepEqual(
      social?.entities.flatMap((entity) =>
        entity.relationships.map((rel) => `${entity.name}.${rel.name}:${rel.cardinality}`),
      ),
      [
        'households.members:many',
        'households.payments:many',
        'members.household:one',
        'payments.household:one',
      ],
    );
  });

  it('has no offerings, evidence types or services without a manifest', () => {
    assert.equal(model.datasets.flatMap((dataset) => dataset.offerings).length, 0);
    assert.deepEqual(
      [model.evidenceTypes, model.publicServices, model.forms, model.codelists],
      [[], [], [], []],
    );
    assert.equal(
      model.datasets[0]?.spatialCoverage,
      'https://vocab.example.org/ambit-demo/places/demo-republic',
    );
  });
});
