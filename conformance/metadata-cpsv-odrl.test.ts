// CPSV-AP 3.2.0 public services and ODRL 2.2 offers: the relay's and the publisher's documents expand offline to
// the graph they claim, CPSV-AP output meets the official shapes (language-tagged texts included), and every
// Offer follows the ODRL information model's rules (an assigner, a target, an action per rule).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import rdf from '@zazuko/env';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { renderCpsvAp } from '../src/relay/metadata/renderers/rdf/render-cpsv-ap.ts';
import { renderPolicies } from '../src/relay/metadata/renderers/rdf/render-odrl-policies.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { type Dataset, instancesOf, jsonLdToDataset, turtleToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';
import { standardsDir } from './standards-dir.ts';

const CPSV_SHAPES = 'cpsv-ap/3.2.0/shacl/cpsv-ap-SHACL.ttl';
const CPSV = 'http://purl.org/vocab/cpsv#';
const CV = 'http://data.europa.eu/m8g/';
const ODRL = 'http://www.w3.org/ns/odrl/2/';

type Json = Record<string, unknown>;

const objects = (data: Dataset, subject: string, predicate: string) =>
  [...data.match(rdf.namedNode(subject), rdf.namedNode(predicate), null)].map((quad) => quad.object);

const demoModel = () =>
  buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);

describe('CPSV-AP 3.2.0 public services', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('the official example expands with the bundled context (the tooling reads CPSV-AP)', async () => {
    const example = JSON.parse(
      readFileSync(join(standardsDir(), 'cpsv-ap/3.2.0/examples/example-rdf_public_service.jsonld'), 'utf8'),
    );
    const data = await jsonLdToDataset(example);
    assert.ok(instancesOf(data, `${CPSV}PublicService`).length > 0);
  });

  it('the relay and the published document meet the official shapes', async () => {
    const documents: [string, unknown][] = [
      ['published', renderCpsvAp(demoModel())],
      ['relay', (await relay.get('/metadata/cpsv-ap', { as: 'catalog_viewer' })).json()],
      ['relay, caseworker', (await relay.get('/metadata/cpsv-ap', { as: 'caseworker' })).json()],
      ['relay, health_planner', (await relay.get('/metadata/cpsv-ap', { as: 'health_planner' })).json()],
    ];
    for (const [label, document] of documents) {
      const data = await jsonLdToDataset(document);
      const report = await validateShacl(data, turtleToDataset(CPSV_SHAPES));
      assert.deepEqual(violations(report), [], `${label}:\n${describeResults(violations(report))}`);
      assert.deepEqual(instancesOf(data, `${CPSV}PublicService`), [
        'https://demo.example.gov/services/cash-transfer-programme',
      ]);
    }
  });

  it('describes the service with its authority, requirements, evidence types, output and channel', async () => {
    const data = await jsonLdToDataset(renderCpsvAp(demoModel()));
    const service = 'https://demo.example.gov/services/cash-transfer-programme';
    const iris = (predicate: string) => objects(data, service, predicate).map((term) => term.value);
    assert.deepEqual(iris(`${CV}hasCompetentAuthority`), [
      'https://demo.example.gov/authorities/social-protection-agency',
    ]);
    assert.deepEqual(iris(`${CV}holdsRequirement`).sort(), [
      'https://demo.example.gov/requirements/household-enrolment',
      'https://demo.example.gov/requirements/proof-of-identity',
    ]);
    assert.deepEqual(iris(`${CV}hasInputType`).sort(), [
      'https://demo.example.gov/evidence-types/household-enrolment',
      'https://demo.example.gov/evidence-types/person-record',
    ]);
    assert.equal(instancesOf(data, `${CV}Output`).length, 1);
    assert.deepEqual(iris(`${CV}hasChannel`), [
      'https://demo.example.gov/services/cash-transfer-programme/channels/online',
    ]);
    for (const requirement of iris(`${CV}holdsRequirement`))
      assert.ok(instancesOf(data, `${CV}Requirement`).includes(requirement));
  });

  it('the shapes reject a service without a language on its title or without a competent authority', async () => {
    const document = structuredClone(renderCpsvAp(demoModel())) as { '@graph': Json[] };
    const service = document['@graph'].find((node) => node['@type'] === 'cpsv:PublicService') as Json;
    service['dct:title'] = 'Cash-transfer programme';
    delete service['cv:hasCompetentAuthority'];
    const report = await validateShacl(await jsonLdToDataset(document), turtleToDataset(CPSV_SHAPES));
    const found = violations(report).map((result) => `${result.constraint} ${result.path}`);
    assert.ok(found.includes('DatatypeConstraintComponent http://purl.org/dc/terms/title'), found.join());
    assert.ok(found.includes(`MinCountConstraintComponent ${CV}hasCompetentAuthority`), found.join());
  });
});

describe('ODRL 2.2 offers', () => {
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  /** ODRL information model rules an Offer must meet (no official shapes are published). */
  function checkOffers(data: Dataset): string[] {
    const offers = instancesOf(data, `${ODRL}Offer`);
    for (const offer of offers) {
      const one = (predicate: string) => objects(data, offer, `${ODRL}${predicate}`);
      assert.equal(one('assigner').length, 1, `${offer}: an Offer has exactly one assigner`);
      assert.equal(one('assigner')[0]?.termType, 'NamedNode');
      assert.equal(one('target').length, 1, `${offer}: the policy target applies to every rule`);
      const rules = [...one('permission'), ...one('prohibition')];
      assert.ok(rules.length > 0, `${offer} has rules`);
      for (const rule of rules) {
        const actions = [...data.match(rule, rdf.namedNode(`${ODRL}action`), null)];
        assert.equal(actions.length, 1, `${offer}: one action per rule`);
        assert.match(actions[0]?.object.value ?? '', /^http:\/\/www\.w3\.org\/ns\/odrl\/2\/\w+$/);
        for (const constraint of data.match(rule, rdf.namedNode(`${ODRL}constraint`), null)) {
          for (const member of ['leftOperand', 'operator', 'rightOperand']) {
            const values = [
              ...data.match(constraint.object as never, rdf.namedNode(`${ODRL}${member}`), null),
            ];
            assert.equal(values.length, 1, `${offer}: constraint ${member}`);
          }
        }
      }
    }
    return offers;
  }

  it('every Offer of the relay and the publication follows the information model', async () => {
    const published = await jsonLdToDataset(renderPolicies(demoModel()));
    assert.deepEqual(checkOffers(published).sort(), [
      'https://demo.example.gov/policies/civil-registry',
      'https://demo.example.gov/policies/social-protection',
    ]);
    const served = await jsonLdToDataset(
      (await relay.get('/metadata/policies', { as: 'caseworker' })).json(),
    );
    assert.equal(checkOffers(served).length, 2);
    const one = await jsonLdToDataset(
      (await relay.get('/metadata/datasets/civil_registry/policy', { as: 'caseworker' })).json(),
    );
    assert.deepEqual(checkOffers(one), ['https://demo.example.gov/policies/civil-registry']);
    const purpose = [
      ...one.match(null, rdf.namedNode(`${ODRL}leftOperand`), rdf.namedNode(`${ODRL}purpose`)),
    ];
    assert.equal(purpose.length, 1);
  });

  it('the DCAT-AP distribution names the same Offer as its policy', async () => {
    const dcat = await jsonLdToDataset((await relay.get('/metadata/dcat', { as: 'caseworker' })).json());
    const policies = [...dcat.match(null, rdf.namedNode(`${ODRL}hasPolicy`), null)].map(
      (q) => q.object.value,
    );
    assert.deepEqual(policies.sort(), [
      'https://demo.example.gov/policies/civil-registry',
      'https://demo.example.gov/policies/social-protection',
    ]);
  });
});
