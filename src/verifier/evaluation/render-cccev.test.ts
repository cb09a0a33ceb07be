import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jsonld from 'jsonld';
import { decimalText, isXsdDate, literal, renderCccev } from './render-cccev.ts';

describe('CCCEV value literals', () => {
  it('type safe integers as xsd:integer numbers, and write every other number out in full', () => {
    for (const value of [0, -3, 42, Number.MAX_SAFE_INTEGER])
      assert.deepEqual(literal(value, 'number'), { '@value': value, '@type': 'xsd:integer' });
    for (const [value, text] of [
      [0.5, '0.5'],
      [-1.25, '-1.25'],
      [1e-7, '0.0000001'],
      [0.1 + 0.2, '0.30000000000000004'],
      [5e-324, `0.${'0'.repeat(323)}5`],
    ] as const)
      assert.deepEqual(literal(value, 'number'), { '@value': text, '@type': 'xsd:decimal' });
    for (const [value, text] of [
      [1e21, '1000000000000000000000'],
      [2 ** 53, '9007199254740992'],
      [-(2 ** 60), '-1152921504606847000'],
    ] as const)
      assert.deepEqual(literal(value, 'number'), { '@value': text, '@type': 'xsd:integer' });
  });

  it('write each number with digits that read back as the same number', () => {
    for (const value of [0.1 + 0.2, Number.MAX_VALUE, -Number.MIN_VALUE, 123456789.12345679, 1 / 3, 2 ** 70])
      assert.equal(Number(decimalText(value)), value, String(value));
  });

  it('type a date claim value xsd:date only when it is a calendar date, else xsd:string', () => {
    assert.deepEqual(literal('2024-02-29', 'date'), { '@value': '2024-02-29', '@type': 'xsd:date' });
    assert.deepEqual(literal('2024-02-29', 'string'), { '@value': '2024-02-29', '@type': 'xsd:string' });
    for (const text of ['2023-02-29', '2020-13-01', '2020-01-02T10:00:00Z', '2020-1-02'])
      assert.deepEqual(literal(text, 'date'), { '@value': text, '@type': 'xsd:string' }, text);
  });

  it('read the XSD date lexical form: time zones, long and negative years', () => {
    for (const text of ['2020-01-02Z', '2020-01-02+14:00', '-0044-03-15', '12020-12-31', '2000-02-29'])
      assert.ok(isXsdDate(text), text);
    for (const text of ['1900-02-29', '2020-01-02+15:00', '02020-01-01', '2020-04-31', '2020-01-00'])
      assert.ok(!isXsdDate(text), text);
  });

  it('carry objects and lists as JSON literals', () => {
    assert.deepEqual(literal({ a: 1 }, 'object'), { '@value': { a: 1 }, '@type': '@json' });
    assert.deepEqual(literal([1, 'x'], 'any'), { '@value': [1, 'x'], '@type': '@json' });
  });
});

describe('CCCEV links to configured IRIs', () => {
  const CV = 'http://data.europa.eu/m8g/';
  const RDF_TYPE = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#type';
  /** The N-Quads lines of one claim rendered with `iri` as both its requirement and its evidence type. */
  const quads = async (iri: string) => {
    const document = renderCccev(
      [
        {
          evaluation_id: '01J0000000000000000000000',
          claim_id: 'c',
          claim_version: '1',
          value: true,
          disclosure: 'value',
          issued_at: '2026-01-01T00:00:00.000Z',
        },
      ],
      {
        service_id: 's',
        claims: [
          { claim_id: 'c', title: 'C', requirement: iri, evidence_type_iri: iri, value_type: 'boolean' },
        ],
      },
    );
    const nquads = await jsonld.toRDF(
      document as jsonld.JsonLdDocument,
      {
        format: 'application/n-quads',
        safe: true,
      } as jsonld.Options.ToRdf,
    );
    return String(nquads).split('\n');
  };

  it('keep an IRI whose scheme is a prefix of the context as it is, not read as a compact IRI', async () => {
    for (const iri of [
      'dcterms:creator',
      'cccev:req1',
      'xsd:string',
      'time:x',
      'foaf:Person',
      'urn:example:r1',
    ]) {
      const lines = await quads(iri);
      for (const predicate of [
        `${CV}supportsRequirement`,
        `${CV}isConformantTo`,
        'http://purl.org/dc/terms/conformsTo',
      ])
        assert.ok(
          lines.some((line) => line.endsWith(`<${predicate}> <${iri}> .`)),
          `${iri} ${predicate}`,
        );
      for (const type of [`${CV}Requirement`, `${CV}EvidenceType`])
        assert.ok(lines.includes(`<${iri}> <${RDF_TYPE}> <${type}> .`), `${iri} a ${type}`);
      // The node's own context names no prefix for the rest of the evidence.
      assert.ok(
        lines.some((line) => line.includes(`<${CV}supportsValue>`)),
        iri,
      );
    }
  });
});
