// An entity or aggregate may declare its own scope (`access.read_scope: <dataset>:<name>`): an API key can hold it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ConfigError } from '../../src/platform/config/config-error.ts';
import { loadRelayConfigText } from '../../src/relay/config/load-relay-config.ts';
import { assertProblem } from '../helpers/http-checks.ts';
import {
  DEMO_DIR,
  demoConfigText,
  demoEnv,
  startDemoRelay,
  type TestRelay,
} from '../helpers/relay-harness.ts';

const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records?limit=2';
const CUSTOM = 'social_protection:casework';

/** Households read under their own scope, which the caseworker key holds instead of `social_protection:rows`. */
function customReadScope(text: string): string {
  const edited = text
    .replace(
      'read_scope: social_protection:rows\n          aggregate_scope: social_protection:aggregate',
      `read_scope: ${CUSTOM}\n          aggregate_scope: social_protection:aggregate`,
    )
    .replace(
      '        - social_protection:rows\n        - civil_registry:metadata',
      `        - ${CUSTOM}\n        - civil_registry:metadata`,
    );
  assert.equal(edited.split(CUSTOM).length, 3, 'both edits applied');
  return edited;
}

describe('API keys holding a scope an entity declares', () => {
  let relay: TestRelay;

  before(async () => {
    relay = await startDemoRelay({ edit: customReadScope });
  });
  after(async () => {
    await relay?.close();
  });

  it('load, and the key holding the declared read scope reads the entity', async () => {
    const response = await relay.get(HOUSEHOLDS, { as: 'caseworker' });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().data.length, 2);
  });

  it('refuse a key holding only the default rows scope', async () => {
    const response = await relay.get(HOUSEHOLDS, { as: 'verifier_service' });
    const body = assertProblem(response, 403, 'auth.scope_denied');
    assert.equal(body.detail, `required scope: ${CUSTOM}`);
  });

  it('name the scopes there are when a refused one is near none of them', () => {
    const text = demoConfigText('/dev/null', (source) =>
      customReadScope(source).replace(`        - ${CUSTOM}\n`, '        - relay:reload\n'),
    );
    assert.throws(
      () => loadRelayConfigText(text, demoEnv(), DEMO_DIR),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues.length === 1 &&
        error.issues[0]?.message ===
          'unknown admin scope `relay:reload`: admin scopes are `relay:admin`, `relay:ops_read`, `relay:metrics_read`',
    );
  });

  it('list each level once when a refused one is near none, the declared ones included', () => {
    // The demo's access blocks name `social_protection:metadata` and `:aggregate` too: listed once each.
    const text = demoConfigText('/dev/null', (source) =>
      customReadScope(source).replace(`        - ${CUSTOM}\n`, '        - social_protection:xyzzy\n'),
    );
    assert.throws(
      () => loadRelayConfigText(text, demoEnv(), DEMO_DIR),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues[0]?.message ===
          'unknown scope level `xyzzy`: a level is one of `metadata`, `rows`, `aggregate`, `casework`',
    );
  });

  it('still refuse a level no entity or aggregate of the dataset declares', () => {
    const text = demoConfigText('/dev/null', (source) =>
      customReadScope(source).replace(`        - ${CUSTOM}\n`, '        - social_protection:casewrok\n'),
    );
    assert.throws(
      () => loadRelayConfigText(text, demoEnv(), DEMO_DIR),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues.length === 1 &&
        error.issues[0]?.path === 'auth.api_keys.1.scopes.1' &&
        /unknown scope level `casewrok`.*`casework`/.test(error.issues[0]?.message ?? ''),
    );
  });
});
