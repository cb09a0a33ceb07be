// What a source record holds cannot change the meaning of the verifier's CCCEV rendering: an `extract` of text
// shaped like JSON-LD (`@id`, IRIs, `_:b0`), of objects and lists holding JSON-LD keywords, of numbers past 2^53
// or of long text is one literal in an otherwise unchanged graph; so is anything the caller puts in its target or
// purpose. Each answer meets the CCCEV 2.1.0 shapes and, as the claim-result JSON does, the OpenAPI document; a render
// of the stored evaluation states the same graph as the answer did.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { Quad } from '@rdfjs/types';
import jsonld from 'jsonld';
import { Parser } from 'n3';
import { type FakeUpstream, startFakeUpstream } from '../test/helpers/fake-upstream.ts';
import { type ConformanceChecker, conformanceChecker } from '../test/helpers/openapi-conformance.ts';
import {
  CCCEV,
  CLAIM_RESULT,
  startTestVerifier,
  type TestVerifier,
} from '../test/helpers/verifier-harness.ts';
import { CV, cccevShapes, RDF, WELL_FORMED_VALUES, XSD } from './rdf/cccev-shapes.ts';
import { jsonLdToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

/** The `payload` field of the record a lookup value finds, as the JSON text the source answers. */
const PAYLOADS: Readonly<Record<string, string>> = {
  PLAIN: '"x"',
  AT_ID: '"@id"',
  IRI: '"http://attacker.example/node"',
  BLANK: '"_:b0"',
  QUOTES: String.raw`"say \"hi\" \\ \u0000 \u2028 \u2029 \" } ] >"`,
  LONG: `"${'a'.repeat(16_000)}"`,
  KEYWORDS: JSON.stringify({
    '@context': {
      '@vocab': 'http://attacker.example/',
      x: { '@id': 'http://attacker.example/x', '@type': '@id' },
    },
    '@id': 'http://attacker.example/node',
    '@type': 'http://attacker.example/Type',
    '@graph': [{ '@id': '_:b0', 'http://attacker.example/p': 'v' }],
    '@value': 1,
    '@language': 'en',
    '@reverse': { 'http://attacker.example/q': { '@id': 'urn:ambit:evidence' } },
    '@included': [{ '@id': 'urn:attacker:included' }],
    '@nest': { x: 'urn:attacker:nested' },
    'http://data.europa.eu/m8g/supportsRequirement': { '@id': 'urn:attacker:requirement' },
  }),
  LIST: JSON.stringify([{ '@id': 'urn:attacker:x' }, '@type', { '@value': 'v', '@type': '@id' }, null]),
  EMPTY: '{}',
  CONSTRUCTOR: '{"constructor": {"prototype": {"@id": "urn:attacker:x"}}}',
  BIG: '12345678901234567890',
  BIG_NESTED: '{"n": 12345678901234567890, "m": [1e308, -0, 5e-324]}',
  NEGATIVE_ZERO: '-0',
};

/**
 * Records holding a `__proto__` key: a JavaScript reader assigning members (JSON-LD expansion with `jsonld` among
 * them) drops it, so the literal would state an object the source never held. Refused as the source's fault.
 */
const REFUSED: Readonly<Record<string, string>> = {
  PROTO: '{"__proto__": {"@id": "urn:attacker:x"}, "b": 1}',
  PROTO_NESTED: '{"a": [{"__proto__": {"@type": "urn:attacker:T"}}]}',
};

const CLAIM = `
    - id: payload
      title: The record's payload
      version: "1"
      subject_type: person
      value: { type: any }
      source_bindings:
        person:
          connector: registry_data_api
          connection: relay_civil
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: target.identifiers.national_id, field: national_id }
          fields: [payload]
      rule: { type: extract, source: person, field: payload }
      disclosure: { default: value, allowed: [value, redacted] }
`;

/** A relay answering each lookup value's one record, its payload written as the JSON text above. */
function payloadRelay(request: IncomingMessage, response: ServerResponse): void {
  const id = new URL(request.url ?? '', 'http://x').searchParams.get('national_id') ?? '';
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    `{"data":[{"national_id":${JSON.stringify(id)},"payload":${PAYLOADS[id] ?? REFUSED[id] ?? 'null'}}],"pagination":{"has_more":false}}`,
  );
}

/** What the caller controls, each field holding JSON-LD syntax: none of it may reach the graph. */
const hostileTarget = (id: string) => ({
  type: 'person',
  identifiers: [
    { scheme: 'national_id', value: id },
    { scheme: '@id', value: '_:b0' },
    { scheme: 'http://attacker.example/scheme', value: '{"@graph": []}' },
  ],
  profile: '@graph',
});

const VALUE = `${CV}value`;
/** N-Quads as parsed quads. */
const quadsOf = async (document: unknown): Promise<Quad[]> =>
  new Parser({ format: 'N-Quads', blankNodePrefix: '' }).parse(
    (await jsonld.toRDF(
      document as jsonld.JsonLdDocument,
      {
        format: 'application/n-quads',
        safe: true,
      } as jsonld.Options.ToRdf,
    )) as unknown as string,
  );

interface CccevDocument {
  readonly '@graph': readonly {
    readonly 'dcterms:identifier': string;
    readonly 'cccev:validityPeriod': {
      readonly 'time:hasBeginning': { readonly 'time:inXSDDateTimeStamp': { readonly '@value': string } };
    };
  }[];
}

/**
 * The statements of a one-claim answer: as parsed, and as sorted lines with the evaluation id, the issue time and
 * the one value literal replaced by placeholders (the shape every rendering of the claim must have).
 */
async function statementsOf(document: CccevDocument) {
  const node = document['@graph'][0];
  assert.ok(node, 'one Evidence node');
  const evaluationId = node['dcterms:identifier'];
  const issuedAt = node['cccev:validityPeriod']['time:hasBeginning']['time:inXSDDateTimeStamp']['@value'];
  const term = (t: Quad['object']) =>
    `${t.termType}:${t.value.replaceAll(evaluationId, 'EVALUATION').replace(issuedAt, 'ISSUED')}${
      t.termType === 'Literal' ? `^^${t.datatype.value}` : ''
    }`;
  const quads = await quadsOf(document);
  const shape = quads
    .map((q) =>
      q.predicate.value === VALUE
        ? `${term(q.subject)} ${term(q.predicate)} VALUE`
        : `${term(q.subject)} ${term(q.predicate)} ${term(q.object)}`,
    )
    .sort();
  return { evaluationId, quads, shape };
}

describe('CCCEV rendering of values a source holds', () => {
  let relay: FakeUpstream;
  let verifier: TestVerifier;
  let openapi: ConformanceChecker;
  /** The graph shape of a plain text value asked for plainly. */
  let expected: string[];

  before(async () => {
    relay = await startFakeUpstream(payloadRelay);
    verifier = await startTestVerifier({
      relays: { civil: relay.url, social: relay.url },
      edit: (text) => `${text}${CLAIM}`,
    });
    const document = await verifier.get('/openapi.json', { as: 'full' });
    openapi = conformanceChecker(JSON.parse(document.body));
    const plain = await verifier.evaluate(
      {
        target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'PLAIN' }] },
        claims: ['payload'],
      },
      { headers: { accept: CCCEV } },
    );
    assert.equal(plain.statusCode, 200, plain.body);
    expected = (await statementsOf(JSON.parse(plain.body))).shape;
  });
  after(async () => {
    await verifier?.close();
    await relay?.close();
  });

  it('states each value as one literal in the same graph, valid against the shapes, and renders it again alike', async () => {
    for (const id of Object.keys(PAYLOADS)) {
      // As JSON states it: no -0.
      const sent = JSON.parse(JSON.stringify(JSON.parse(PAYLOADS[id] as string)));
      const response = await verifier.evaluate(
        { target: hostileTarget(id), claims: ['payload'] },
        { headers: { accept: CCCEV } },
      );
      assert.equal(response.statusCode, 200, `${id}: ${response.body.slice(0, 300)}`);
      const document = openapi.check('POST', '/v1/evaluations', response, id) as CccevDocument;
      const { evaluationId, quads, shape } = await statementsOf(document);
      assert.deepEqual(shape, expected, id);

      const [value, ...more] = quads.filter((q) => q.predicate.value === VALUE).map((q) => q.object);
      assert.equal(more.length, 0, id);
      assert.equal(value?.termType, 'Literal', id);
      if (value?.termType !== 'Literal') continue;
      if (typeof sent === 'string') {
        assert.equal(value.datatype.value, `${XSD}string`, id);
        assert.equal(value.value, sent, id);
      } else if (typeof sent === 'number') {
        assert.equal(Number(value.value), sent, id);
      } else {
        assert.equal(value.datatype.value, `${RDF}JSON`, id);
        assert.deepEqual(JSON.parse(value.value), sent, id);
      }

      const data = await jsonLdToDataset(document);
      for (const shapes of [cccevShapes(), WELL_FORMED_VALUES]) {
        const report = violations(await validateShacl(data, shapes));
        assert.deepEqual(report, [], `${id}:\n${describeResults(report)}`);
      }

      const again = await verifier.post(`/v1/evaluations/${evaluationId}/render`, undefined, {
        headers: { accept: CCCEV },
      });
      assert.equal(again.statusCode, 200, `${id}: ${again.body.slice(0, 300)}`);
      assert.equal(again.body, response.body, id);
      const rendered = (await quadsOf(JSON.parse(again.body))).map((q) => JSON.stringify(q)).sort();
      assert.deepEqual(rendered, quads.map((q) => JSON.stringify(q)).sort(), id);
    }
  });

  it('answers each value in the claim-result JSON as the source sent it, as the OpenAPI document declares', async () => {
    for (const id of Object.keys(PAYLOADS)) {
      const body = { target: hostileTarget(id), claims: ['payload'] };
      const response = await verifier.evaluate(body, { headers: { accept: CLAIM_RESULT } });
      openapi.checkRequest('POST', '/v1/evaluations', '/v1/evaluations', undefined, body);
      const answer = openapi.check('POST', '/v1/evaluations', response, id) as {
        results: { value: unknown }[];
      };
      const sent = JSON.parse(JSON.stringify(JSON.parse(PAYLOADS[id] as string)));
      assert.deepEqual(answer.results[0]?.value, sent, id);
    }
  });

  it('refuses a record holding a `__proto__` key, in either format, rather than answer another value', async () => {
    for (const id of Object.keys(REFUSED)) {
      for (const accept of [CCCEV, CLAIM_RESULT]) {
        const response = await verifier.evaluate(
          { target: hostileTarget(id), claims: ['payload'] },
          { headers: { accept } },
        );
        assert.equal(response.statusCode, 503, `${id}: ${response.body.slice(0, 300)}`);
        assert.equal(JSON.parse(response.body).code, 'source.unavailable', id);
      }
    }
  });
});
