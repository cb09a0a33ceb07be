// A render answers a stored CCCEV evaluation exactly as it was answered, even where the configuration it was made
// with has changed since: another instance on the shared PostgreSQL store, or a restart with an edited claim.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };

function postgresState(text: string): string {
  return `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL }\n`;
}

/** The same claim with another title and an evidence type IRI: what a CCCEV rendering reads of it. */
function editedClaim(text: string): string {
  const edited = text.replace(
    '    - id: person_alive\n      title: Person is alive\n',
    '    - id: person_alive\n      title: Person is living\n      cccev: { evidence_type_iri: "https://evidence.example/alive" }\n',
  );
  assert.notEqual(edited, text, 'the claim was edited');
  return postgresState(edited);
}

describe('render after a configuration change', () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  const running: TestVerifier[] = [];
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    database = await openTestDatabase();
  });
  after(async () => {
    for (const verifier of running) await verifier.close();
    await database?.close();
    await upstream.close();
  });

  const start = async (edit: (text: string) => string) => {
    const verifier = await startTestVerifier({
      relays: { civil: upstream.url, social: upstream.url },
      edit,
      env: { STATE_URL: database.url },
    });
    running.push(verifier);
    return verifier;
  };

  it('answers the CCCEV document as it was made, not as the other instance would render it now', async () => {
    const first = await start(postgresState);
    const made = await first.evaluate(
      { target: TARGET, claims: ['person_alive'] },
      { headers: { accept: CCCEV } },
    );
    assert.equal(made.statusCode, 200, made.body);
    const document = JSON.parse(made.body);
    const id = document['@graph'][0]['dcterms:identifier'];
    assert.equal(document['@graph'][0]['dcterms:title'], 'Person is alive');

    const second = await start(editedClaim);
    // The edited configuration is the one the second instance renders new evaluations with.
    const fresh = await second.evaluate(
      { target: TARGET, claims: ['person_alive'] },
      { headers: { accept: CCCEV } },
    );
    const freshNode = JSON.parse(fresh.body)['@graph'][0];
    assert.equal(freshNode['dcterms:title'], 'Person is living');
    assert.deepEqual(freshNode['cccev:isConformantTo'], { '@id': 'https://evidence.example/alive' });

    const rendered = await second.post(`/v1/evaluations/${id}/render`, {}, { headers: { accept: CCCEV } });
    assert.equal(rendered.statusCode, 200, rendered.body);
    assert.equal(rendered.body, made.body, 'the render answers the same bytes');
  });
});
