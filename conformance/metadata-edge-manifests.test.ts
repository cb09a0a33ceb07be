// Manifests far from the demo: right-to-left, emoji and combining texts, several publishers without IRIs, IRIs
// with query strings and unicode, timestamps with offsets, codes needing percent-encoding, an entity without
// fields, a self relationship and a typed ODRL literal. Every published document still meets the official
// shapes and schemas, and says what the manifest says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import rdf from '@zazuko/env';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { buildStaticArtefacts } from '../src/publisher/build-static-artefacts.ts';
import { parseManifestText } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { RECORDS_BASE, recordsAjv } from './ogc/records-ajv.ts';
import { type Dataset, instancesOf, jsonLdToDataset, turtleToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

const MANIFEST = `schema_version: registry-manifest/v1
catalog:
  id: edge
  base_url: https://registries.example.org/reg/
  title: { ar: "سجلات تجريبية", en: "Registries 🚀 e\\u0301", zh-Hant: "登記冊" }
  description: { en: "Line one\\nLine two \\"quoted\\" \\\\ <tag> & more" }
  publisher: { name: "وزارة السجلات" }
  languages: [ar, en]
  issued: "2025-01-15T10:00:00+02:00"
vocabularies: { ex: "https://vocab.example.org/x/" }
authorities:
  - { id: one, name: "Agence", country: FR }
  - { id: two, name: "Agence!", country: FR }
public_services:
  - { id: s1, iri: "ex:services/s1", title: Service 🚀, competent_authority: one, jurisdiction: "ex:places/p", produces: [health] }
  - { id: s2, iri: "ex:services#s2", title: Service deux, competent_authority: two, jurisdiction: "ex:places/p", produces: [schools] }
data_services:
  - { id: api, iri: "ex:api", title: API, endpoint_url: "https://registries.example.org/api?format=json", serves_datasets: [health, schools] }
codelists:
  - { id: codes, scheme_iri: "ex:codes", concepts: [{ code: "a b" }, { code: "ü/é" }, { code: "x?y#z" }] }
datasets:
  - id: health
    iri: "https://registries.example.org/datasets/health?version=1&lang=ar"
    title: { ar: "الصحة", en: Health }
    publisher: { name: "وزارة الصحة" }
    license: CC BY 4.0
    keywords: ["clé", "🚀"]
    themes: ["https://registries.example.org/themes/café"]
    issued: "2025-01-15"
    modified: "2025-06-30T12:00:00.250+05:30"
    policy:
      assigner: "ex:agents/health"
      permissions:
        - action: use
          constraints: [{ left_operand: dateTime, operator: lt, right_operand: { value: "2030-01-01" }, datatype: date }]
    entities:
      - name: people
        fields:
          - { name: id, type: string, required: true }
          - { name: code, type: code, codelist: codes }
          - { name: seen, type: timestamp }
        relationships:
          - { name: parent, target_entity: people, cardinality: zero_or_one }
      - name: nothing
  - id: schools
    title: Schools
    publisher: { name: "وزارة التعليم" }
    license: CC-BY-4.0
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
  'metadata/cpsv-ap.jsonld': ['http://purl.org/vocab/cpsv#PublicService', 2],
};
/** RFC 3987: no spaces, controls or <>"{}|\\^` in an IRI, and at most one `#`. */
const IRI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s<>"{}|\\^`#\p{Cc}]*(?:#[^\s<>"{}|\\^`#\p{Cc}]*)?$/u;
const DCT = 'http://purl.org/dc/terms/';
const FOAF = 'http://xmlns.com/foaf/0.1/';

type Json = Record<string, unknown>;

const model = buildModelFromManifest(parseManifestText(MANIFEST));
const files = new Map(
  buildStaticArtefacts(model).map((file) => [file.path, JSON.parse(file.body.toString('utf8')) as Json]),
);
const file = (path: string) => files.get(path) as Json;
const objects = (data: Dataset, subject: string, predicate: string) =>
  [...data.match(rdf.namedNode(subject), rdf.namedNode(predicate), null)].map((quad) => quad.object);

describe('documents of an unusual manifest', () => {
  it('every JSON-LD file expands in safe mode to absolute IRIs and meets its official shapes', async () => {
    const jsonLd = [...files.keys()].filter((path) => path.endsWith('.jsonld'));
    assert.ok(jsonLd.length >= 8, jsonLd.join());
    for (const path of Object.keys(SHAPES)) assert.ok(jsonLd.includes(path), `${path} is published`);
    for (const path of jsonLd) {
      const data = await jsonLdToDataset(file(path));
      for (const quad of data)
        for (const term of [quad.subject, quad.predicate, quad.object])
          if (term.termType === 'NamedNode') assert.match(term.value, IRI, path);
      for (const shapes of [SHAPES[path] ?? []].filter((list) => list.length > 0)) {
        const report = await validateShacl(data, turtleToDataset(...shapes));
        assert.deepEqual(violations(report), [], `${path}:\n${describeResults(violations(report))}`);
        const [type, count] = HOLDS[path] as readonly [string, number];
        assert.equal(instancesOf(data, type).length, count, `${path}: ${type}`);
      }
    }
  });

  it('keeps apart publishers and authorities without IRIs, whatever their script', async () => {
    const dcat = await jsonLdToDataset(file('metadata/dcat.jsonld'));
    // Publishers without an IRI are blank nodes: follow the term itself.
    const publisherName = (dataset: string) =>
      objects(dcat, dataset, `${DCT}publisher`).flatMap((publisher) =>
        [...dcat.match(publisher as never, rdf.namedNode(`${FOAF}name`), null)].map(
          (quad) => quad.object.value,
        ),
      );
    const [health, schools] = model.datasets.map((dataset) => dataset.iri);
    assert.deepEqual(publisherName(health as string), ['وزارة الصحة']);
    assert.deepEqual(publisherName(schools as string), ['وزارة التعليم']);
    assert.deepEqual(publisherName(`${model.catalog.baseUrl}/metadata/catalog`), ['وزارة السجلات']);
    // Licences whose texts differ only in punctuation stay apart.
    const licences = new Set(
      [...dcat.match(null, rdf.namedNode(`${DCT}license`), null)].map((quad) => quad.object.value),
    );
    assert.equal(licences.size, 2);
    const cpsv = await jsonLdToDataset(file('metadata/cpsv-ap.jsonld'));
    assert.equal(instancesOf(cpsv, 'http://data.europa.eu/m8g/PublicOrganisation').length, 2);
  });

  it('types a bare ODRL constraint datatype as XSD', async () => {
    const policy = await jsonLdToDataset(file('metadata/policies/health.jsonld'));
    const operands = [
      ...policy.match(null, rdf.namedNode('http://www.w3.org/ns/odrl/2/rightOperand'), null),
    ].map((quad) => quad.object);
    assert.deepEqual(
      operands.map((term) => (term.termType === 'Literal' ? term.datatype.value : term.termType)),
      ['http://www.w3.org/2001/XMLSchema#date'],
    );
  });

  it('OGC records validate and keep timestamps with an offset, Records time in UTC', () => {
    const validate = recordsAjv().getSchema(`${RECORDS_BASE}recordGeoJSON.yaml`);
    const record = file('metadata/ogc/records/health.geojson');
    assert.equal(validate?.(record), true, JSON.stringify(validate?.errors));
    assert.deepEqual(record.time, { timestamp: '2025-06-30T06:30:00.250Z' });
    const properties = record.properties as Json;
    assert.equal(properties.updated, '2025-06-30T12:00:00.250+05:30');
    assert.equal(properties.created, '2025-01-15T00:00:00Z');
  });

  it('entity schemas are Draft 2020-12 and accept a record with unicode and nulls', () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(file('metadata/schema/health/people/schema.json'));
    assert.equal(validate({ id: 'ü 🚀', code: 'x?y#z', seen: null }), true, JSON.stringify(validate.errors));
    assert.equal(validate({ id: 'x', code: 'x?y', seen: null }), false);
    const empty = ajv.compile(file('metadata/schema/health/nothing/schema.json'));
    assert.equal(empty({}), true);
  });
});
