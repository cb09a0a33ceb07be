// Keys of the reference verifier contract this verifier has no use for: each is refused with what to write instead,
// never with a bare "unknown key" (nor a "did you mean" that would change another setting).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BASE, connectionConfig, issuesOf } from './verifier-config-test-support.ts';

function messagesOf(text: string): Map<string, string> {
  return new Map(issuesOf(text).map((issue) => [issue.path, `${issue.code}: ${issue.message}`]));
}

describe('reference verifier keys', () => {
  it('points the reference top-level blocks without a counterpart to what replaces them', () => {
    const messages = messagesOf(`${BASE}\nreplay: { storage: in_memory }\ndeployment: { profile: local }\n`);
    assert.match(messages.get('replay') ?? '', /^config\.parse_error: .*`state`/);
    assert.match(messages.get('deployment') ?? '', /^config\.parse_error: .*deployment profiles/);
  });

  it('points the reference discovery URLs to `api_base_url`', () => {
    const text = BASE.replace(
      '  service_id: test.verifier\n',
      '  service_id: test.verifier\n  claims_url: /v1/claims\n  formats_url: /v1/formats\n',
    );
    const messages = messagesOf(text);
    for (const key of ['claims_url', 'formats_url']) {
      assert.match(messages.get(`evidence.${key}`) ?? '', /^config\.parse_error: .*`api_base_url`/);
    }
  });

  it('names the CEL keys that differ by unit, and says the other reference CEL limits are fixed', () => {
    const messages = messagesOf(
      `${BASE}\ncel: { mode: worker, eval_timeout_ms: 2000, worker_memory_bytes: 134217728, queue_max: 0, allow_regex: false, max_list_items: 1024 }\n`,
    );
    assert.match(messages.get('cel.eval_timeout_ms') ?? '', /use `eval_timeout`/);
    assert.match(messages.get('cel.worker_memory_bytes') ?? '', /use `worker_memory_mb`/);
    for (const key of ['mode', 'queue_max', 'allow_regex', 'max_list_items']) {
      assert.match(messages.get(`cel.${key}`) ?? '', /^config\.parse_error: .*not configurable/, key);
    }
  });

  it('points a connection bulk_timeout_max_ms to `timeout`', () => {
    const messages = messagesOf(
      connectionConfig(
        'base_url: "http://127.0.0.1:4242", token_env: RELAY_TOKEN, allow_insecure_localhost: true, bulk_timeout_max_ms: 30000',
      ),
    );
    assert.match(messages.get('evidence.source_connections.relay.bulk_timeout_max_ms') ?? '', /`timeout`/);
  });
});
