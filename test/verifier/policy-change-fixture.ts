// Two verifiers on one PostgreSQL state store, the second configured after `person_alive` had its disclosure policy
// changed: what the first stored (an evaluation, a batch answer) is then asked for through the second.
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { openTestDatabase, type TestDatabase } from '../helpers/postgres-harness.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

export const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-1' }] };
const ALIVE_POLICY =
  '      disclosure: { default: predicate, allowed: [predicate, value, redacted], downgrade: deny }\n';

function postgresState(text: string): string {
  return `${text}\nstate:\n  storage: postgresql\n  postgresql: { url_env: STATE_URL }\n`;
}

/** Started before the suite's tests, closed after; `policy` is person_alive's `disclosure` on the second. */
export function usePolicyChange(policy: string): {
  readonly first: TestVerifier;
  readonly second: TestVerifier;
} {
  let upstream: FakeUpstream | undefined;
  let database: TestDatabase | undefined;
  const started: { first?: TestVerifier; second?: TestVerifier } = {};
  before(async () => {
    upstream = await startFakeUpstream((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
    });
    database = await openTestDatabase();
    const start = (edit: (text: string) => string) =>
      startTestVerifier({
        relays: { civil: (upstream as FakeUpstream).url, social: (upstream as FakeUpstream).url },
        edit,
        env: { STATE_URL: (database as TestDatabase).url },
      });
    started.first = await start(postgresState);
    started.second = await start((text) => {
      const edited = text.replace(ALIVE_POLICY, `      disclosure: ${policy}\n`);
      assert.notEqual(edited, text, 'the policy was edited');
      return postgresState(edited);
    });
  });
  after(async () => {
    await started.second?.close();
    await started.first?.close();
    await database?.close();
    await upstream?.close();
  });
  return {
    get first() {
      return started.first as TestVerifier;
    },
    get second() {
      return started.second as TestVerifier;
    },
  };
}
