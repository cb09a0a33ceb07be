// The relay's entity SHACL shapes are well-formed SHACL (checked with shapes for shapes written here from the
// SHACL recommendation) and work: every demo record, written as RDF with the shapes' predicates, conforms, and
// records with a missing required field, a code outside the codelist or a wrong datatype do not.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import rdf from '@zazuko/env';
import { Parser } from 'n3';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import type { EntityMeta, MetadataFieldType } from '../src/relay/metadata/model/metadata-model.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { type Row, readDemoData } from '../test/relay/read-demo-data.ts';
import { type Dataset, jsonLdToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

const XSD = 'http://www.w3.org/2001/XMLSchema#';

/**
 * Shapes for our shapes: the parts of SHACL Core's syntax rules (W3C SHACL, sections 2 and 4) our documents
 * use. A node shape has property shapes; a property shape has exactly one IRI path, at most one datatype (an
 * IRI), non-negative integer counts, and `sh:in` as a list.
 */
const SHAPES_FOR_SHAPES = `
@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix ex: <urn:shapes-for-shapes:> .
ex:NodeShape a sh:NodeShape ; sh:targetClass sh:NodeShape ;
  sh:property [ sh:path sh:property ; sh:minCount 1 ; sh:node ex:PropertyShape ] ;
  sh:property [ sh:path sh:targetClass ; sh:nodeKind sh:IRI ] .
ex:PropertyShape a sh:NodeShape ;
  sh:property [ sh:path sh:path ; sh:minCount 1 ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sh:datatype ; sh:maxCount 1 ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sh:class ; sh:nodeKind sh:IRI ] ;
  sh:property [ sh:path sh:nodeKind ; sh:maxCount 1 ; sh:in ( sh:IRI sh:Literal sh:BlankNode sh:BlankNodeOrIRI sh:IRIOrLiteral sh:BlankNodeOrLiteral ) ] ;
  sh:property [ sh:path sh:minCount ; sh:maxCount 1 ; sh:datatype xsd:integer ; sh:minInclusive 0 ] ;
  sh:property [ sh:path sh:maxCount ; sh:maxCount 1 ; sh:datatype xsd:integer ; sh:minInclusive 0 ] ;
  sh:property [ sh:path sh:in ; sh:maxCount 1 ; sh:node ex:List ] ;
  sh:property [ sh:path sh:name ; sh:maxCount 1 ; sh:nodeKind sh:Literal ] .
ex:List a sh:NodeShape ;
  sh:or ( [ sh:hasValue <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil> ]
          [ sh:property [ sh:path <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ; sh:minCount 1 ; sh:maxCount 1 ] ;
            sh:property [ sh:path <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ; sh:minCount 1 ; sh:maxCount 1 ] ] ) .
`;

const DATATYPES: Record<MetadataFieldType, string> = {
  string: 'string',
  code: 'string',
  number: 'decimal',
  integer: 'integer',
  boolean: 'boolean',
  date: 'date',
  timestamp: 'dateTime',
};

type Json = Record<string, unknown>;
type PropertyShape = { 'sh:name': string; 'sh:path': { '@id': string } };

/** Records as RDF: one typed subject each, one triple per non-null field, with the predicates the shape names. */
function recordsAsRdf(entity: EntityMeta, shape: Json, rows: readonly Row[]): Quad[] {
  const predicates = new Map(
    (shape['sh:property'] as PropertyShape[]).map((property) => [
      property['sh:name'],
      property['sh:path']['@id'],
    ]),
  );
  const targetClass = (shape['sh:targetClass'] as { '@id': string })['@id'];
  return rows.flatMap((row) => {
    const subject = rdf.namedNode(
      `urn:record:${entity.datasetId}:${entity.name}:${row[entity.primaryKey ?? '']}`,
    );
    return [
      rdf.quad(subject, rdf.ns.rdf.type, rdf.namedNode(targetClass)),
      ...entity.fields.flatMap((field) => {
        const value = row[field.name];
        const predicate = predicates.get(field.name);
        if (value === null || value === undefined || predicate === undefined) return [];
        const literal = rdf.literal(String(value), rdf.namedNode(`${XSD}${DATATYPES[field.type]}`));
        return [rdf.quad(subject, rdf.namedNode(predicate), literal)];
      }),
    ];
  });
}

describe('entity SHACL shapes', () => {
  const model = buildModelFromManifest(loadManifestFile(`${DEMO_DIR}relay.metadata.yaml`).manifest);
  let relay: TestRelay;
  let document: { '@graph': Json[] };
  let shapes: Dataset;
  before(async () => {
    relay = await startDemoRelay();
    document = (await relay.get('/metadata/shacl', { as: 'catalog_viewer' })).json();
    shapes = await jsonLdToDataset(document);
  });
  after(() => relay.close());

  const shapeOf = (entity: EntityMeta) =>
    document['@graph'].find(
      (node) => node['dct:identifier'] === `${entity.datasetId}/${entity.name}`,
    ) as Json;
  const entities = () => model.datasets.flatMap((dataset) => dataset.entities);

  it('are well-formed SHACL', async () => {
    const meta = rdf.dataset(new Parser().parse(SHAPES_FOR_SHAPES));
    const report = await validateShacl(shapes, meta);
    assert.deepEqual(violations(report), [], describeResults(violations(report)));
    // The meta-shapes have teeth: a property shape with two paths and a text count is refused.
    const broken = rdf.dataset([
      ...new Parser().parse(
        '@prefix sh: <http://www.w3.org/ns/shacl#> . <urn:s> a sh:NodeShape ; sh:property [ sh:path <urn:a>, <urn:b> ; sh:minCount "one" ] .',
      ),
    ]);
    const refused = violations(await validateShacl(broken, meta));
    assert.equal(refused.length, 1, 'the node shape fails through its property shape');
  });

  it('every demo record conforms to its entity shape', async () => {
    const data = await readDemoData();
    const rows: Record<string, readonly Row[]> = data as unknown as Record<string, readonly Row[]>;
    let count = 0;
    for (const entity of entities()) {
      const records = rows[entity.name] ?? [];
      assert.ok(records.length > 0, entity.name);
      const report = await validateShacl(rdf.dataset(recordsAsRdf(entity, shapeOf(entity), records)), shapes);
      assert.deepEqual(
        violations(report),
        [],
        `${entity.name}:\n${describeResults(violations(report)).slice(0, 2000)}`,
      );
      count += records.length;
    }
    assert.ok(count > 1000, `validated ${count} records`);
  });

  it('a record with a missing required field, a code outside its codelist or a wrong datatype fails', async () => {
    const persons = entities().find((entity) => entity.name === 'persons') as EntityMeta;
    const [first] = (await readDemoData()).persons;
    const broken = { ...first, person_id: 'broken-1', given_name: null, sex: 'unknown' } as Row;
    const quads = recordsAsRdf(persons, shapeOf(persons), [broken]).map((quad) =>
      quad.predicate.value.endsWith('birthDate')
        ? rdf.quad(quad.subject, quad.predicate, rdf.literal('yesterday', rdf.namedNode(`${XSD}string`)))
        : quad,
    );
    const report = await validateShacl(rdf.dataset(quads), shapes);
    const found = violations(report).map(
      (result) => `${result.constraint} ${result.path.replace(/^.*[/#]/, '')}`,
    );
    assert.deepEqual(found.sort(), [
      'DatatypeConstraintComponent birthDate',
      'InConstraintComponent sex',
      'MinCountConstraintComponent givenName',
    ]);
  });
});
