// The verifier's CCCEV rendering (`Accept: application/ld+json; profile="cccev"`), expanded offline, against the
// CCCEV 2.1.0 shapes and the rule checks CHECKS.md adds (the shapes have no mandatory property): every Evidence
// is typed, links to what it supports, every linked node carries its range class, and values sit in
// SupportedValue nodes that say what they provide a value for.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Term } from '@rdfjs/types';
import rdf from '@zazuko/env';
import { Parser } from 'n3';
import { startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../test/helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../test/relay/read-demo-data.ts';
import { CV, cccevShapes, RDF, TIME, WELL_FORMED_VALUES, XSD } from './rdf/cccev-shapes.ts';
import { type Dataset, instancesOf, jsonLdToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

const DCT = 'http://purl.org/dc/terms/';

/** The classes CHECKS.md gives as ranges of the Evidence properties the renderer uses. */
const EVIDENCE_RANGES: Readonly<Record<string, string>> = {
  [`${DCT}conformsTo`]: `${CV}EvidenceType`,
  [`${CV}supportsRequirement`]: `${CV}Requirement`,
  [`${CV}supportsConcept`]: `${CV}InformationConcept`,
  [`${CV}supportsValue`]: `${CV}SupportedValue`,
  [`${CV}validityPeriod`]: `${TIME}ProperInterval`,
  [`${CV}isProvidedBy`]: 'http://xmlns.com/foaf/0.1/Agent',
};

const objectsOf = (data: Dataset, subject: Term, predicate: string) =>
  [...data.match(subject as never, rdf.namedNode(predicate), null)].map((quad) => quad.object);
const typed = (data: Dataset, node: Term, type: string) =>
  data.match(node as never, rdf.ns.rdf.type, rdf.namedNode(type)).size > 0;

/** The rule checks; returns the Evidence nodes. */
function checkEvidence(data: Dataset): Term[] {
  const evidence = [...data.match(null, rdf.ns.rdf.type, rdf.namedNode(`${CV}Evidence`))].map(
    (q) => q.subject,
  );
  assert.ok(evidence.length > 0, 'the document expands to at least one cv:Evidence');
  for (const node of evidence) {
    const supports = [
      ...objectsOf(data, node, `${CV}supportsRequirement`),
      ...objectsOf(data, node, `${CV}supportsConcept`),
    ];
    assert.ok(supports.length > 0, `${node.value} says what it supports`);
    for (const [predicate, range] of Object.entries(EVIDENCE_RANGES)) {
      for (const object of objectsOf(data, node, predicate))
        assert.ok(
          typed(data, object, range),
          `${node.value} ${predicate} -> ${object.value} is not a ${range}`,
        );
    }
    assert.ok(objectsOf(data, node, `${DCT}conformsTo`).length > 0, `${node.value} names its evidence type`);
    for (const value of objectsOf(data, node, `${CV}supportsValue`)) {
      const concepts = objectsOf(data, value, `${CV}providesValueFor`);
      assert.equal(concepts.length, 1, 'a SupportedValue provides a value for one concept');
      assert.ok(typed(data, concepts[0] as Term, `${CV}InformationConcept`));
      assert.equal(objectsOf(data, value, `${CV}value`).length, 1, 'and carries the value');
    }
    for (const period of objectsOf(data, node, `${CV}validityPeriod`)) {
      const beginnings = objectsOf(data, period, `${TIME}hasBeginning`);
      assert.equal(beginnings.length, 1);
      const stamp = objectsOf(data, beginnings[0] as Term, `${TIME}inXSDDateTimeStamp`)[0];
      assert.equal(
        stamp?.termType === 'Literal' && stamp.datatype.value,
        'http://www.w3.org/2001/XMLSchema#dateTimeStamp',
      );
    }
  }
  return evidence;
}

describe('CCCEV rendering of evaluations', () => {
  let civil: TestRelay;
  let social: TestRelay;
  let verifier: TestVerifier;
  let head: Row;
  const listen = async (relay: TestRelay) => {
    await relay.app.listen({ host: '127.0.0.1', port: 0 });
    return `http://127.0.0.1:${(relay.app.server.address() as AddressInfo).port}`;
  };
  const person = (row: Row) => ({
    type: 'person',
    identifiers: [
      { scheme: 'national_id', value: String(row.national_id) },
      { scheme: 'person_id', value: String(row.person_id) },
    ],
  });
  const render = async (body: Record<string, unknown>) => {
    const response = await verifier.evaluate(
      { target: person(head), ...body },
      { headers: { accept: CCCEV } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], CCCEV);
    return jsonLdToDataset(JSON.parse(response.body));
  };

  before(async () => {
    [civil, social] = await Promise.all([startDemoRelay(), startDemoRelay()]);
    const [civilUrl, socialUrl] = await Promise.all([listen(civil), listen(social)]);
    verifier = await startTestVerifier({ relays: { civil: civilUrl, social: socialUrl } });
    const data = await readDemoData();
    const enrolled = data.households.find((household) => {
      const row = data.persons.find((p) => p.person_id === household.head_of_household_person_id);
      return household.enrollment_status === 'enrolled' && row?.deceased === false;
    });
    head = data.persons.find((row) => row.person_id === enrolled?.head_of_household_person_id) as Row;
    assert.ok(head, 'the demo data has an alive head of an enrolled household');
  });
  after(async () => {
    await verifier?.close();
    await Promise.all([civil?.close(), social?.close()]);
  });

  it('a value literal ill-formed for its datatype fails the well-formedness shape (the check has teeth)', async () => {
    for (const literal of ['"5.0E-1"^^xsd:decimal', '"1.0E21"^^xsd:integer', '"2020-02-3"^^xsd:date']) {
      const data = rdf.dataset(
        new Parser().parse(`@prefix cv: <${CV}> . @prefix xsd: <${XSD}> . <urn:v> cv:value ${literal} .`),
      );
      assert.equal(violations(await validateShacl(data, WELL_FORMED_VALUES)).length, 1, literal);
    }
  });

  it('the corrected shapes still find an untyped range (the check has teeth)', async () => {
    const broken = rdf.dataset(
      new Parser().parse(`
        @prefix cv: <${CV}> . @prefix time: <${TIME}> .
        <urn:e> a cv:Evidence ; cv:validityPeriod <urn:p> ; cv:supportsRequirement <urn:r> .
        <urn:p> a time:ProperInterval ; time:hasBeginning <urn:i> .`),
    );
    const found = violations(await validateShacl(broken, cccevShapes())).map((r) =>
      r.path.replace(/^.*[#/]/, ''),
    );
    assert.deepEqual(found.sort(), ['hasBeginning', 'supportsRequirement']);
  });

  it('a claim with its CCCEV requirement and evidence type meets the shapes and the rule checks', async () => {
    const data = await render({ claims: ['eligible'] });
    const report = await validateShacl(data, cccevShapes());
    assert.deepEqual(violations(report), [], describeResults(violations(report)));
    const [evidence] = checkEvidence(data);
    assert.deepEqual(
      objectsOf(data, evidence as Term, `${CV}supportsRequirement`).map((term) => term.value),
      ['https://demo.example.gov/requirements/eligible-head'],
    );
    assert.deepEqual(
      objectsOf(data, evidence as Term, `${DCT}conformsTo`).map((term) => term.value),
      ['https://demo.example.gov/evidence-types/eligibility'],
    );
  });

  it('several claims, values of other types and a redacted claim meet them too', async () => {
    for (const body of [
      { claims: ['person_alive', 'household_enrolled'], disclosure: 'value' },
      { claims: ['household_size_plus'], target: { ...person(head), attributes: { newborns: 1 } } },
      { claims: ['person_alive'], disclosure: 'redacted' },
    ]) {
      const data = await render(body);
      const report = await validateShacl(data, cccevShapes());
      assert.deepEqual(
        violations(report),
        [],
        `${JSON.stringify(body)}:\n${describeResults(violations(report))}`,
      );
      const evidence = checkEvidence(data);
      assert.equal(evidence.length, (body.claims as string[]).length);
      // A redacted claim carries no value; each disclosed one carries its value.
      assert.equal(
        instancesOf(data, `${CV}SupportedValue`).length,
        body.disclosure === 'redacted' ? 0 : evidence.length,
        JSON.stringify(body),
      );
    }
  });
});

/** Claims whose CEL rules answer one value of each kind; one has a version with a space, one configured IRIs. */
const VALUE_CLAIMS = [
  ['fraction', 'number', '0.5', 'urn:example:requirement:fraction', 'urn:example:evidence-type:fraction'],
  ['large', 'number', '1e21'],
  ['precise', 'number', '0.1 + 0.2'],
  ['largest', 'number', '1.7976931348623157e308'],
  ['tiny', 'number', '5e-324'],
  ['unsafe', 'number', '9007199254740992.0 * 4.0'],
  ['negative', 'integer', '-3'],
  ['leap_day', 'date', "'2024-02-29'"],
  ['record', 'object', "{'a': 0.5, 'b': [1, 2]}"],
  ['list', 'array', "[0.5, 'q']"],
  ['unknown', 'boolean', 'null'],
  ['holds', 'boolean', 'true'],
  // Through YAML, then CEL: the value is `say "hi" \ ü 😀` and a line break.
  ['quoted', 'string', String.raw`'say \"hi\" \\\\ ü 😀\\n'`],
]
  .map(
    ([id, type, expression, requirement, evidenceType]) => `
    - id: v_${id}
      title: Value ${id}
      version: "2024 rev"
      subject_type: person
      value: { type: ${type} }
      rule: { type: cel, expression: "${expression}" }
      disclosure: ${type === 'boolean' ? '{ default: predicate, allowed: [predicate] }' : '{ default: value, allowed: [value] }'}${
        requirement === undefined
          ? ''
          : `
      cccev: { requirement: "${requirement}", evidence_type_iri: "${evidenceType}" }`
      }`,
  )
  .join('');

describe('CCCEV rendering of every kind of value', () => {
  let verifier: TestVerifier;
  before(async () => {
    verifier = await startTestVerifier({ edit: (text) => `${text}${VALUE_CLAIMS}\n` });
  });
  after(() => verifier?.close());

  /** The one Evidence node of a claim rendered alone, with the dataset it expands to. */
  const render = async (claim: string) => {
    const response = await verifier.evaluate(
      { target: { type: 'person', id: 'P-1' }, claims: [`v_${claim}`] },
      { headers: { accept: CCCEV } },
    );
    assert.equal(response.statusCode, 200, response.body);
    const document = JSON.parse(response.body);
    const data = await jsonLdToDataset(document);
    for (const shapes of [cccevShapes(), WELL_FORMED_VALUES]) {
      const report = await validateShacl(data, shapes);
      assert.deepEqual(violations(report), [], `${claim}:\n${describeResults(violations(report))}`);
    }
    const [evidence] = checkEvidence(data);
    const [value] = [...data.match(null, rdf.namedNode(`${CV}value`), null)].map((quad) => quad.object);
    return { document, data, evidence: evidence as Term, value };
  };

  it('numbers keep their value in a lexical form their datatype allows', async () => {
    for (const [claim, number] of [
      ['fraction', 0.5],
      ['large', 1e21],
      ['negative', -3],
      // Seventeen significant digits: a 16-digit double form would give another number (0.3), or infinity.
      ['precise', 0.1 + 0.2],
      ['largest', Number.MAX_VALUE],
      ['tiny', 5e-324],
      ['unsafe', 2 ** 55],
    ] as const) {
      const { value } = await render(claim);
      assert.equal(value?.termType, 'Literal');
      assert.equal(Number(value?.value), number, `${claim}: ${value?.value}`);
    }
  });

  it('booleans and text keep their value, quotes, backslashes and characters beyond U+FFFF included', async () => {
    const holds = (await render('holds')).value;
    assert.equal(holds?.termType === 'Literal' && holds.datatype.value, `${XSD}boolean`);
    assert.equal(holds?.value, 'true');
    const { value } = await render('quoted');
    assert.equal(value?.termType === 'Literal' && value.datatype.value, `${XSD}string`);
    assert.equal(value?.value, 'say "hi" \\ ü 😀\n');
  });

  it('a date claim value is an xsd:date', async () => {
    const { value } = await render('leap_day');
    assert.equal(value?.termType === 'Literal' && value.datatype.value, `${XSD}date`);
    assert.equal(value?.value, '2024-02-29');
  });

  it('objects and lists are JSON literals of a document that declares JSON-LD 1.1', async () => {
    for (const [claim, json] of [
      ['record', { a: 0.5, b: [1, 2] }],
      ['list', [0.5, 'q']],
    ] as const) {
      const { document, value } = await render(claim);
      // JSON literals (`@json`) are a JSON-LD 1.1 feature: the context says so, and a 1.0 processor refuses it.
      assert.equal(document['@context']['@version'], 1.1);
      assert.equal(value?.termType === 'Literal' && value.datatype.value, `${RDF}JSON`);
      assert.deepEqual(JSON.parse(value?.value ?? ''), json);
    }
  });

  it('an unknown outcome (null) still supports its requirement, with no SupportedValue', async () => {
    const { data, evidence, value } = await render('unknown');
    assert.equal(value, undefined);
    assert.equal(instancesOf(data, `${CV}SupportedValue`).length, 0);
    assert.equal(objectsOf(data, evidence, `${CV}supportsRequirement`).length, 1);
  });

  it('keeps the links whatever the claim version, and the configured IRIs', async () => {
    const generated = await render('large');
    const [type] = objectsOf(generated.data, generated.evidence, `${DCT}conformsTo`);
    assert.equal(type?.value, 'urn:ambit:claim:v_large:2024%20rev');
    const configured = await render('fraction');
    assert.deepEqual(
      [`${CV}supportsRequirement`, `${DCT}conformsTo`].map(
        (predicate) => objectsOf(configured.data, configured.evidence, predicate)[0]?.value,
      ),
      ['urn:example:requirement:fraction', 'urn:example:evidence-type:fraction'],
    );
  });
});
