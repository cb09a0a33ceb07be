// Scoped views: nothing about an invisible dataset survives, in the model or in any rendering of it.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DEMO_DIR, demoEnv } from '../../../../test/helpers/relay-harness.ts';
import { buildCatalog } from '../../catalog/build-catalog.ts';
import { loadRelayConfig } from '../../config/load-relay-config.ts';
import { renderEntityShacl } from '../renderers/rdf/render-shacl.ts';
import { renderCatalogJson } from '../renderers/render-catalog-json.ts';
import { buildModelFromManifest } from './build-model-from-manifest.ts';
import { relayMetadataLinks } from './metadata-links.ts';
import type { EntityMeta, MetadataModel } from './metadata-model.ts';
import { EVERYTHING_VISIBLE, scopeMetadataModel } from './scope-metadata-model.ts';

const loaded = loadRelayConfig(join(DEMO_DIR, 'relay.yaml'), demoEnv());
const manifest = loaded.manifest?.manifest;
if (!manifest) throw new Error('the demo config names a manifest');
const model = buildModelFromManifest(manifest, { runtime: buildCatalog(loaded.config) });
const links = relayMetadataLinks(model.catalog.baseUrl);

const only = (...datasets: string[]) =>
  scopeMetadataModel(model, {
    dataset: (id) => datasets.includes(id),
    entity: (id) => datasets.includes(id),
    aggregate: (id) => datasets.includes(id),
  });

/** Ids that identify each demo dataset's own content. */
const FOOTPRINT: Record<string, readonly string[]> = {
  civil_registry: ['civil_registry', '"persons"', 'civil-person-record', 'person-record-evidence', '"sex"'],
  social_protection: [
    'social_protection',
    '"households"',
    '"payments"',
    'sp-household-enrolment',
    'household-enrolment-evidence',
    'poverty-band',
    'payment-status',
  ],
  health_facilities: ['health_facilities', '"facilities"', 'facility-type'],
};

describe('scopeMetadataModel', () => {
  it('keeps everything when everything is visible', () => {
    assert.deepEqual(scopeMetadataModel(model, EVERYTHING_VISIBLE), model);
  });

  for (const visible of Object.keys(FOOTPRINT)) {
    it(`a view of ${visible} alone mentions no other dataset`, () => {
      const view = only(visible);
      assert.deepEqual(
        view.datasets.map((dataset) => dataset.id),
        [visible],
      );
      const text = JSON.stringify(renderCatalogJson(view, links));
      for (const [other, marks] of Object.entries(FOOTPRINT)) {
        for (const mark of marks) {
          if (other === visible) assert.ok(text.includes(mark), `${visible} view lacks its own ${mark}`);
          else assert.ok(!text.includes(mark), `${visible} view leaks ${mark} of ${other}`);
        }
      }
    });
  }

  it('keeps a service reached through a visible offering, with references to hidden datasets dropped', () => {
    const view = only('civil_registry');
    const service = view.publicServices.find((candidate) => candidate.id === 'cash-transfer-programme');
    assert.ok(service, 'the offering names the service as its procedure context');
    assert.deepEqual(service.produces, []);
    assert.deepEqual(view.dataServices[0]?.servesDatasets, ['civil_registry']);
    const enrolment = view.requirements.find((requirement) => requirement.id === 'household-enrolment');
    assert.deepEqual(
      enrolment?.evidenceTypeLists,
      [],
      'evidence types only hidden offerings use are dropped',
    );
    assert.deepEqual(
      view.evidenceTypes.map((type) => type.id),
      ['person-record-evidence'],
    );
  });

  it('filters entities inside a visible dataset, and their offerings with them', () => {
    const view = scopeMetadataModel(model, {
      dataset: (id) => id === 'social_protection',
      entity: (_id, name) => name === 'payments',
      aggregate: () => false,
    });
    assert.deepEqual(
      view.datasets[0]?.entities.map((entity) => entity.name),
      ['payments'],
    );
    assert.deepEqual(view.datasets[0]?.offerings, []);
    assert.deepEqual(view.evidenceTypes, []);
  });

  it('writes a field with the same SHACL path whether or not a relationship sharing its concept is visible', () => {
    // A foreign key and its relationship described by one concept: the field keeps it, the relationship gets a
    // path of its own.
    const concept = 'https://demo.example.gov/def/memberOf';
    const shared = structuredClone(model) as MetadataModel;
    const dataset = shared.datasets.find((candidate) => candidate.id === 'social_protection');
    const members = dataset?.entities.find((entity) => entity.name === 'members') as EntityMeta;
    Object.assign(members.fields.find((field) => field.name === 'household_id') as object, {
      concepts: [concept],
    });
    Object.assign(members.relationships.find((rel) => rel.name === 'household') as object, {
      conceptUri: concept,
    });
    const pathOf = (view: MetadataModel, name: string) => {
      const entity = view.datasets
        .find((candidate) => candidate.id === 'social_protection')
        ?.entities.find((candidate) => candidate.name === 'members') as EntityMeta;
      const graph = renderEntityShacl(view, entity)['@graph'] as {
        'sh:property': Record<string, unknown>[];
      }[];
      const shape = graph[0] as { 'sh:property': Record<string, unknown>[] };
      return shape['sh:property'].find((property) => property['sh:name'] === name)?.['sh:path'];
    };
    const pathOfHouseholdId = (view: MetadataModel) => pathOf(view, 'household_id');
    const withoutHouseholds = scopeMetadataModel(shared, {
      dataset: (id) => id === 'social_protection',
      entity: (_id, name) => name === 'members',
      aggregate: () => false,
    });
    const everything = scopeMetadataModel(shared, EVERYTHING_VISIBLE);
    const full = pathOfHouseholdId(everything);
    assert.deepEqual(full, { '@id': concept });
    assert.deepEqual(pathOf(everything, 'household'), {
      '@id': `${model.catalog.baseUrl}/metadata/datasets/social_protection/entities/members#household`,
    });
    assert.deepEqual(pathOfHouseholdId(withoutHouseholds), full);
  });

  it('renders a view the same whether or not a relationship it cannot see shares a concept with it', () => {
    // Members' household_id and the relationships of members described by one concept; households hidden.
    const concept = 'https://demo.example.gov/def/memberOf';
    const described = (relationships: boolean) => {
      const copy = structuredClone(model) as MetadataModel;
      const dataset = copy.datasets.find((candidate) => candidate.id === 'social_protection');
      const members = dataset?.entities.find((entity) => entity.name === 'members') as EntityMeta;
      Object.assign(members.fields.find((field) => field.name === 'household_id') as object, {
        concepts: [concept],
      });
      Object.assign(members, {
        relationships: relationships
          ? [
              { ...members.relationships[0], conceptUri: concept },
              {
                name: 'alias',
                target: 'households',
                cardinality: 'one',
                foreignKey: 'household_id',
                conceptUri: concept,
              },
            ]
          : [],
      });
      return copy;
    };
    const shacl = (source: MetadataModel) => {
      const view = scopeMetadataModel(source, {
        dataset: (id) => id === 'social_protection',
        entity: (_id, name) => name === 'members',
        aggregate: () => false,
      });
      const entity = view.datasets[0]?.entities[0] as EntityMeta;
      return JSON.stringify(renderEntityShacl(view, entity));
    };
    assert.equal(shacl(described(true)), shacl(described(false)));
  });

  it('sees nothing when nothing is visible', () => {
    const view = only();
    assert.deepEqual(
      [view.datasets, view.publicServices, view.dataServices, view.forms, view.codelists, view.requirements],
      [[], [], [], [], [], []],
    );
    assert.ok(Object.isFrozen(view));
  });
});
