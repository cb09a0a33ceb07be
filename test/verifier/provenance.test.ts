// `provenance.used.source_count`: the distinct sources (connection, dataset, entity) behind a result, sub-claims
// included; not the reads made. Two reads of one source count once, a claim over target attributes alone counts
// none, and the served OpenAPI document says the same.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

/** A civil-registry binding of one alias, looked up by `input` in `field`. */
const persons = (alias: string, input: string, field: string) => `
        ${alias}:
          connector: registry_data_api
          connection: relay_civil
          required_scope: civil:evidence
          dataset: civil_registry
          entity: persons
          lookup: { input: ${input}, field: ${field} }
          fields: [deceased]`;

const CLAIMS = `
    - id: twice_read
      title: Alive by both identifiers
      version: "1"
      subject_type: person
      value: { type: boolean }
      source_bindings:${persons('a', 'target.identifiers.national_id', 'national_id')}${persons('b', 'target.identifiers.person_id', 'person_id')}
      rule: { type: cel, expression: "!source.a.deceased && !source.b.deceased" }
      disclosure: { default: predicate, allowed: [predicate] }
    - id: adult
      title: Adult by the stated age
      version: "1"
      subject_type: person
      value: { type: boolean }
      rule: { type: cel, expression: "int(ctx.target.attributes.age) >= 18" }
      disclosure: { default: predicate, allowed: [predicate, redacted] }
    - id: same_source
      title: Alive, registered and adult
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [person_alive, person_registered, adult]
      rule:
        type: cel
        expression: "claims.person_alive.value && claims.person_registered.value && claims.adult.value"
      disclosure: { default: predicate, allowed: [predicate, redacted] }
`;

/** One living person for any lookup, answered with the value asked for; counts the reads. */
function livingPerson() {
  let reads = 0;
  return {
    handler(request: IncomingMessage, response: ServerResponse): void {
      reads++;
      const query = new URL(request.url ?? '', 'http://x').searchParams;
      const row = {
        national_id: query.get('national_id') ?? 'FAKE-1',
        person_id: query.get('person_id') ?? 'per-1',
      };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ ...row, deceased: false }] }));
    },
    reads: () => reads,
  };
}

describe('provenance source_count', () => {
  const relay = livingPerson();
  let upstream: FakeUpstream;
  let verifier: TestVerifier;
  const target = {
    type: 'person',
    identifiers: [
      { scheme: 'national_id', value: 'FAKE-1' },
      { scheme: 'person_id', value: 'per-1' },
    ],
    attributes: { age: 30 },
  };

  before(async () => {
    upstream = await startFakeUpstream(relay.handler);
    verifier = await startTestVerifier({
      relays: { civil: upstream.url, social: upstream.url },
      edit: (text) => `${text}${CLAIMS}`,
    });
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  /** Each result's source_count, and the reads the evaluation made. */
  async function counted(claims: string[], disclosure?: string) {
    const before = relay.reads();
    const response = await verifier.evaluate({ target, claims, ...(disclosure ? { disclosure } : {}) });
    assert.equal(response.statusCode, 200, response.body);
    const { results } = JSON.parse(response.body) as {
      results: { claim_id: string; provenance: { used: { source_count: number } } }[];
    };
    const counts = Object.fromEntries(results.map((r) => [r.claim_id, r.provenance.used.source_count]));
    return { counts, reads: relay.reads() - before };
  }

  it('counts distinct sources, not reads: sub-claims and bindings on one source count once', async () => {
    assert.deepEqual(await counted(['twice_read']), { counts: { twice_read: 1 }, reads: 2 });
    // person_alive and person_registered read the same entity with other fields (two reads); adult reads nothing.
    assert.deepEqual(await counted(['same_source']), { counts: { same_source: 1 }, reads: 2 });
    assert.deepEqual(await counted(['adult']), { counts: { adult: 0 }, reads: 0 });
    // Redacting a result hides its value, not what it was evaluated from.
    assert.deepEqual((await counted(['same_source', 'adult'], 'redacted')).counts, {
      same_source: 1,
      adult: 0,
    });
  });

  it('is described in the served OpenAPI document as the distinct sources, not the reads', async () => {
    const document = JSON.parse((await verifier.get('/openapi.json', { as: 'full' })).body);
    const description = String(
      document.components.schemas.Provenance.properties.used.properties.source_count.description,
    );
    assert.match(description, /distinct sources/i);
    assert.doesNotMatch(description, /source reads/i);
  });
});
