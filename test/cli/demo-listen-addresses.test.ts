// The demo's listeners move with AMBIT_RELAY_BIND, AMBIT_VERIFIER_BIND and AMBIT_VERIFIER_ADMIN_BIND: every address
// `ambit demo` accepts for them (an IPv6 one is written in brackets) has to reach its config as the address given.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { loadVerifierConfig } from '../../src/verifier/config/load-verifier-config.ts';
import { DEMO_DIR, demoEnv, TEST_KEYS } from '../helpers/relay-harness.ts';

describe('demo listen addresses', () => {
  const state = mkdtempSync(join(tmpdir(), 'ambit-demo-binds-'));
  after(() => rmSync(state, { recursive: true, force: true }));

  it('takes IPv6 addresses for the relay and both verifier listeners', () => {
    const env = demoEnv({
      AMBIT_DEMO_STATE_DIR: state,
      AMBIT_RELAY_BIND: '[::1]:4242',
      AMBIT_DEMO_RELAY_BASE_URL: 'http://[::1]:4242',
      AMBIT_VERIFIER_BIND: '[::1]:4343',
      AMBIT_VERIFIER_ADMIN_BIND: '[::]:4344',
      AMBIT_DEMO_RELAY_URL: 'http://[::1]:4242',
      AMBIT_DEMO_VERIFIER_SERVICE_KEY: TEST_KEYS.verifier_service,
    });
    const relay = loadRelayConfig(join(DEMO_DIR, 'relay.yaml'), env).config;
    assert.equal(relay.server.bind, '[::1]:4242');
    assert.equal(relay.catalog.base_url, 'http://[::1]:4242');
    const verifier = loadVerifierConfig(join(DEMO_DIR, 'verifier.yaml'), env).config;
    assert.equal(verifier.server.bind, '[::1]:4343');
    assert.equal(verifier.server.admin_bind, '[::]:4344');
    assert.equal(verifier.evidence.source_connections.demo_relay?.base_url, 'http://[::1]:4242');
  });

  it('keeps the defaults when the variables are unset', () => {
    const env = demoEnv({
      AMBIT_DEMO_STATE_DIR: state,
      AMBIT_DEMO_VERIFIER_SERVICE_KEY: TEST_KEYS.verifier_service,
    });
    assert.equal(loadRelayConfig(join(DEMO_DIR, 'relay.yaml'), env).config.server.bind, '127.0.0.1:4242');
    const verifier = loadVerifierConfig(join(DEMO_DIR, 'verifier.yaml'), env).config;
    assert.equal(verifier.server.bind, '127.0.0.1:4343');
    assert.equal(verifier.server.admin_bind, '127.0.0.1:4344');
  });
});
