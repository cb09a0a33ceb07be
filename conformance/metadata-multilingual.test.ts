// A catalogue whose first language is not English, with concept IRIs holding percent-escapes that are not UTF-8
// (a Latin-1 `%E9`, raw bytes) and a field that is required but nullable: every document still renders and meets
// the official shapes, each generated text carries the language it is written in, and the entity shape accepts
// the nulls the relay serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import rdf from '@zazuko/env';
import { buildStaticArtefacts } from '../src/publisher/build-static-artefacts.ts';
import { parseManifestText } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { relayMetadataLinks } from '../src/relay/metadata/model/metadata-links.ts';
import { renderDcat } from '../src/relay/metadata/renderers/rdf/render-dcat.ts';
import { type Dataset, instancesOf, jsonLdToDataset, turtleToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

const BASE = 'https://registres.example.fr';
const MANIFEST = `schema_version: registry-manifest/v1
catalog:
  id: registres
  base_url: ${BASE}
  title: { fr: Registres, en: Registries }
  publisher: { name: Ministère, iri: "${BASE}/org/ministere", authority_type: "${BASE}/types/Minist%C3%A8re%FF" }
  languages: [fr, en]
  spatial_coverage: http://publications.europa.eu/resource/authority/country/FRA
authorities:
  - { id: agence, name: Agence, authority_type: "${BASE}/types/%E9tat", country: FR }
public_services:
  - { id: s1, iri: "${BASE}/services/s1", title: { fr: Service, en: Service }, competent_authority: agence, produces: [sante] }
data_services:
  - { id: api, iri: "${BASE}/api", title: { fr: Interface de données, en: Data interface }, endpoint_url: "${BASE}/api", serves_datasets: [sante] }
datasets:
  - id: sante
    title: { fr: Santé, en: Health }
    themes: ["${BASE}/themes/%FF%FE", "${BASE}/themes/taux-100%25"]
    entities:
      - name: patients
        fields:
          - { name: id, type: string, required: true }
          - { name: deces, type: date, required: true, nullable: true }
  - id: ecoles
    title: Écoles
`;

const FULL_TEMPLATE = 'dcat-ap/3.0.1/shacl/dcat-ap-SHACL.ttl';
const SHAPES: Record<string, readonly string[]> = {
  'metadata/dcat.jsonld': [FULL_TEMPLATE],
  'metadata/dcat.bregdcat-ap.jsonld': ['bregdcat-ap/2.0.0/BRegDCAT-AP_shacl_shapes_2.00.ttl', FULL_TEMPLATE],
  'metadata/cpsv-ap.jsonld': ['cpsv-ap/3.2.0/shacl/cpsv-ap-SHACL.ttl'],
};
/** What each document holds for its shapes to check (an empty graph conforms to any shapes): class, count. */
const HOLDS: Record<string, readonly [string, number]> = {
  'metadata/dcat.jsonld': ['http://www.w3.org/ns/dcat#Dataset', 2],
  'metadata/dcat.bregdcat-ap.jsonld': ['http://www.w3.org/ns/dcat#Dataset', 2],
  'metadata/cpsv-ap.jsonld': ['http://purl.org/vocab/cpsv#PublicService', 1],
};
const DCT_TITLE = 'http://purl.org/dc/terms/title';
const DISTRIBUTION = 'http://www.w3.org/ns/dcat#Distribution';
const DATA_SERVICE = 'http://www.w3.org/ns/dcat#DataService';

const model = buildModelFromManifest(parseManifestText(MANIFEST));

/** Each title of a node as `language: text`, sorted. */
function titles(data: Dataset, subject: string): string[] {
  return [...data.match(rdf.namedNode(subject), rdf.namedNode(DCT_TITLE), null)]
    .map((quad) => `${(quad.object as { language?: string }).language}: ${quad.object.value}`)
    .sort();
}

describe('a catalogue in French first, with unusual concept IRIs', () => {
  it('renders every document, and each RDF one meets its official shapes', async () => {
    const files = buildStaticArtefacts(model);
    for (const [path, shapes] of Object.entries(SHAPES)) {
      const file = files.find((candidate) => candidate.path === path);
      assert.ok(file, path);
      const data = await jsonLdToDataset(JSON.parse(file.body.toString('utf8')));
      const report = await validateShacl(data, turtleToDataset(...shapes));
      assert.deepEqual(violations(report), [], `${path}:\n${describeResults(violations(report))}`);
      const [type, count] = HOLDS[path] as readonly [string, number];
      assert.equal(instancesOf(data, type).length, count, `${path}: ${type}`);
    }
  });

  it('labels a concept from its IRI, decoding what is UTF-8 and keeping other escapes', async () => {
    const data = await jsonLdToDataset(renderDcat(model, relayMetadataLinks(BASE)));
    const label = (iri: string) =>
      [...data.match(rdf.namedNode(iri), rdf.ns.skos.prefLabel, null)].map((quad) => quad.object.value);
    assert.deepEqual(label(`${BASE}/types/Minist%C3%A8re%FF`), ['Ministère%ff']);
    assert.deepEqual(label(`${BASE}/themes/taux-100%25`), ['Taux 100%']);
    assert.deepEqual(label(`${BASE}/themes/%FF%FE`), ['%ff%fe']);
  });

  it('titles each distribution in every language of its dataset, each text under its own tag', async () => {
    const data = await jsonLdToDataset(renderDcat(model, relayMetadataLinks(BASE)));
    const [declared, translated] = [
      `${BASE}/metadata/datasets/sante/distributions/api`,
      `${BASE}/metadata/datasets/ecoles/distributions/relay-data-api`,
    ];
    assert.deepEqual(instancesOf(data, DISTRIBUTION).sort(), [translated, declared].sort());
    assert.deepEqual(titles(data, declared), [
      'en: Health (JSON, Data interface)',
      'fr: Santé (JSON, Interface de données)',
    ]);
    // A title of unknown language takes the catalogue's first one.
    assert.match(titles(data, translated).join(), /^fr: Écoles \(JSON, /);
    // The relay's own data API is named in English, whatever the catalogue's first language.
    const relayApi = instancesOf(data, DATA_SERVICE).find((iri) => iri.endsWith('/v1/datasets')) as string;
    assert.deepEqual(titles(data, relayApi), ['en: Registries: registry data API']);
  });

  it('the entity shape accepts the null a required but nullable field may hold, and still wants the rest', async () => {
    const file = buildStaticArtefacts(model).find((f) => f.path === 'metadata/shacl/sante/patients.jsonld');
    assert.ok(file);
    const document = JSON.parse(file.body.toString('utf8')) as { '@graph': Record<string, unknown>[] };
    const shapes = await jsonLdToDataset(document);
    const shape = document['@graph'][0] as {
      'sh:property': { 'sh:name': string; 'sh:path': { '@id': string } }[];
    };
    const path = (name: string) =>
      rdf.namedNode(
        shape['sh:property'].find((property) => property['sh:name'] === name)?.['sh:path']['@id'] ?? '',
      );
    const targetClass = (document['@graph'][0]?.['sh:targetClass'] as { '@id': string } | undefined)?.['@id'];
    // Without a concept the shape has no target class: validate the records against the node shape directly.
    assert.equal(targetClass, undefined);
    const shapeIri = document['@graph'][0]?.['@id'] as string;
    const targeted = rdf.dataset([
      ...shapes,
      rdf.quad(rdf.namedNode(shapeIri), rdf.ns.sh.targetNode, rdf.namedNode('urn:record:null-death')),
      rdf.quad(rdf.namedNode(shapeIri), rdf.ns.sh.targetNode, rdf.namedNode('urn:record:no-id')),
    ]);
    // A record is one triple per non-null member: `deces: null` is no triple at all.
    const records = rdf.dataset([
      rdf.quad(rdf.namedNode('urn:record:null-death'), path('id'), rdf.literal('p-1')),
      rdf.quad(
        rdf.namedNode('urn:record:no-id'),
        path('deces'),
        rdf.literal('2024-01-02', rdf.namedNode('http://www.w3.org/2001/XMLSchema#date')),
      ),
    ]);
    const found = violations(await validateShacl(records, targeted)).map(
      (result) => `${result.focusNode} ${result.constraint} ${result.path.replace(/^.*#/, '')}`,
    );
    assert.deepEqual(found, ['urn:record:no-id MinCountConstraintComponent id']);
  });
});
