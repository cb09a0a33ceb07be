// A render is a disclosure of its own: a stored result is answered again only while the claim's current disclosure
// policy still allows its level, as it is answered only while the caller still holds the claim's scopes. Another
// instance on the shared PostgreSQL store (or a restart) whose configuration withdrew `value` must not keep serving
// values for the evaluation's retention.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const ALIVE_POLICY =
  '      disclosure: { default: predicate, allowed: [predicate, value, redacted], downgrade: deny }\n';

function postgresState(text: string): string {
  return `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL }\n`;
}

/** person_alive as configured after `value` was withdrawn (redacted too, yet a redacted result discloses nothing). */
function withdrawn(text: string): string {
  const edited = text.replace(
    ALIVE_POLICY,
    '      disclosure: { default: predicate, allowed: [predicate], downgrade: redacted }\n',
  );
  assert.notEqual(edited, text, 'the policy was edited');
  return postgresState(edited);
}

describe('render after a disclosure policy change', () => {
  let upstream: FakeUpstream;
  let database: TestDatabase;
  let first: TestVerifier;
  let second: TestVerifier;
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    database = await openTestDatabase();
    const start = (edit: (text: string) => string) =>
      startTestVerifier({
        relays: { civil: upstream.url, social: upstream.url },
        edit,
        env: { STATE_URL: database.url },
      });
    first = await start(postgresState);
    second = await start(withdrawn);
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await database?.close();
    await upstream?.close();
  });

  async function evaluated(disclosure: string): Promise<string> {
    const made = await first.evaluate({ target: TARGET, claims: ['person_alive'], disclosure });
    assert.equal(made.statusCode, 200, made.body);
    const [result] = JSON.parse(made.body).results;
    assert.equal(result.disclosure, disclosure);
    return result.evaluation_id;
  }

  it('refuses to render a value the claim no longer discloses: 403 claim.disclosure_not_allowed, no value', async () => {
    const id = await evaluated('value');
    // The instance that made it still renders it.
    assert.equal((await first.post(`/v1/evaluations/${id}/render`, {})).statusCode, 200);
    const rendered = await second.post(`/v1/evaluations/${id}/render`, {});
    assert.equal(rendered.statusCode, 403, rendered.body);
    const problem = JSON.parse(rendered.body);
    assert.equal(problem.code, 'claim.disclosure_not_allowed');
    assert.equal(problem.claim_id, 'person_alive');
    assert.equal(problem.results, undefined);
    const record = second.auditRecords().at(-1) as Record<string, unknown>;
    assert.equal(record.endpoint_kind, 'render');
    assert.equal(record.status, 403);
    assert.equal(record.problem_code, 'claim.disclosure_not_allowed');
  });

  it('still renders what the policy allows, and a redacted result, which discloses nothing', async () => {
    for (const disclosure of ['predicate', 'redacted']) {
      const id = await evaluated(disclosure);
      const rendered = await second.post(`/v1/evaluations/${id}/render`, {});
      assert.equal(rendered.statusCode, 200, rendered.body);
      assert.equal(JSON.parse(rendered.body).results[0].disclosure, disclosure);
    }
  });
});
