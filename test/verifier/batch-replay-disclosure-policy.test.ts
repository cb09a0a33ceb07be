// An idempotent replay answers a stored batch response again, so it is a disclosure of its own, as a render is: it
// is answered only while each claim still allows the level its results were made at. Another instance on the shared
// PostgreSQL store (or a restart) whose configuration withdrew `value`, and now downgrades a `value` request to
// `redacted`, must not keep replaying values for the key's retention.
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

/** person_alive once `value` was withdrawn: a request for it is now answered redacted, not refused. */
function withdrawn(text: string): string {
  const edited = text.replace(
    ALIVE_POLICY,
    '      disclosure: { default: predicate, allowed: [predicate, redacted], downgrade: redacted }\n',
  );
  assert.notEqual(edited, text, 'the policy was edited');
  return postgresState(edited);
}

describe('idempotent batch replay after a disclosure policy change', () => {
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

  async function batch(verifier: TestVerifier, disclosure: string, key: string) {
    return verifier.post(
      '/v1/batch-evaluations',
      { items: [{ target: TARGET }], claims: ['person_alive'], disclosure },
      { headers: { 'idempotency-key': key } },
    );
  }

  it('refuses to replay a value the claim no longer discloses: 403 claim.disclosure_not_allowed, no value', async () => {
    const made = await batch(first, 'value', 'replay-value-1');
    assert.equal(made.statusCode, 200, made.body);
    assert.equal(JSON.parse(made.body).items[0].claim_results[0].disclosure, 'value');
    // The instance that made it still replays it.
    const again = await batch(first, 'value', 'replay-value-1');
    assert.equal(again.headers['idempotent-replayed'], 'true');

    const replayed = await batch(second, 'value', 'replay-value-1');
    assert.equal(replayed.statusCode, 403, replayed.body);
    const problem = JSON.parse(replayed.body);
    assert.equal(problem.code, 'claim.disclosure_not_allowed');
    assert.equal(problem.claim_id, 'person_alive');
    assert.equal(problem.items, undefined);
    assert.equal(replayed.headers['idempotent-replayed'], undefined);
    const record = second.auditRecords().at(-1) as Record<string, unknown>;
    assert.equal(record.endpoint_kind, 'batch_evaluate');
    assert.equal(record.status, 403);
    assert.equal(record.problem_code, 'claim.disclosure_not_allowed');
  });

  it('still replays what the policy allows', async () => {
    const made = await batch(first, 'predicate', 'replay-predicate-1');
    assert.equal(made.statusCode, 200, made.body);
    const replayed = await batch(second, 'predicate', 'replay-predicate-1');
    assert.equal(replayed.statusCode, 200, replayed.body);
    assert.equal(replayed.headers['idempotent-replayed'], 'true');
    assert.equal(replayed.body, made.body);
  });
});
