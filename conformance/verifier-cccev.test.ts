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
import { type Dataset, instancesOf, jsonLdToDataset, turtleToDataset } from './rdf/rdf-dataset.ts';
import { describeResults, validateShacl, violations } from './rdf/validate-shacl.ts';

const CV = 'http://data.europa.eu/m8g/';
const DCT = 'http://purl.org/dc/terms/';
const TIME = 'http://www.w3.org/2006/time#';
const SHAPES = 'cccev/2.1.0/shacl/cccev-ap-SHACL.ttl';

/**
 * The CCCEV 2.1.0 shapes, with one upstream erratum corrected: they name the OWL-Time instant class with an
 * `https://` IRI, while OWL-Time (and the ProperInterval range they check) is `http://www.w3.org/2006/time#`.
 */
function cccevShapes(): Dataset {
  const shapes = turtleToDataset(SHAPES);
  const wrong = 'https://www.w3.org/2006/time#Instant';
  const fix = (term: Term) =>
    term.termType === 'NamedNode' && term.value === wrong ? rdf.namedNode(`${TIME}Instant`) : term;
  return rdf.dataset(
    [...shapes].map((q) => rdf.quad(fix(q.subject) as never, q.predicate, fix(q.object) as never)),
  );
}

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
      if (body.disclosure === 'redacted') assert.equal(instancesOf(data, `${CV}SupportedValue`).length, 0);
    }
  });
});
