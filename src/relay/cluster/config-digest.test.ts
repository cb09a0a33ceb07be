import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { configText, reloadEnv } from '../../../test/relay/reload-fixture.ts';
import { loadRelayConfigText } from '../config/load-relay-config.ts';
import { configDigest, configMismatch } from './config-digest.ts';

const load = (text: string, env = reloadEnv()) => loadRelayConfigText(text, env, '/srv/relay');

describe('the config digest a primary hands its workers', () => {
  it('is the same for the same config and environment, and names no secret', () => {
    const digest = configDigest(load(configText()));
    assert.equal(configDigest(load(configText())), digest);
    assert.match(digest, /^[0-9a-f]{64}$/);
    assert.equal(configMismatch(load(configText()), digest), undefined);
  });

  it('tells apart an edited config file and a changed secret', () => {
    const digest = configDigest(load(configText()));
    const edited = configText().replace('title: People', 'title: Persons');
    assert.match(configMismatch(load(edited), digest) ?? '', /differs from the one the relay started with/);
    const env = { ...reloadEnv(), AUDIT_SECRET: 'another-audit-secret-0123456789abcdefgh' };
    assert.notEqual(configDigest(load(configText(), env)), digest);
  });

  it('lets a worker start when no digest was handed to it', () => {
    assert.equal(configMismatch(load(configText()), undefined), undefined);
  });
});
