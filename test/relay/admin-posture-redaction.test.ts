// Posture and capabilities stay redacted when the config puts a credential, a path or a connection string where a
// plain name is expected (`instance.id`, `instance.environment`), directly or through `${VAR}` expansion.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { loadWithInstance, opsAdminApp } from './stand-in-admin-app.ts';

interface Answered {
  readonly text: string;
  readonly posture: { instance: { id?: string; environment?: string } };
}

const ODD_VALUES = {
  DB_URL: 'postgres://relay:db-pa55word@db.internal:5432/registry?sslmode=require',
  TOKEN_URL: 'https://user:url-pa55word@example.org/hook?token=query-s3cret&x=1',
  SHARE: '/srv/secrets/relay.env',
} as const;

async function postureAndCapabilities(instance: string): Promise<Answered> {
  const admin = opsAdminApp(loadWithInstance(instance, ODD_VALUES));
  try {
    const get = async (url: string) => {
      const response = await admin.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 200, response.body);
      return response.body;
    };
    const posture = await get('/admin/v1/posture');
    const text = `${posture}\n${await get('/admin/v1/capabilities')}`;
    return { text, posture: JSON.parse(posture) };
  } finally {
    await admin.close();
  }
}

describe('posture redaction of odd config values', () => {
  let expanded: Answered;
  let literal: Answered;
  before(async () => {
    // `${VAR}` references, expanded by the config loader.
    const ref = (name: keyof typeof ODD_VALUES) => `\${${name}}`;
    expanded = await postureAndCapabilities(`{ id: "${ref('DB_URL')}", environment: "${ref('TOKEN_URL')}" }`);
    literal = await postureAndCapabilities(
      '{ id: "relay at /srv/relay/config.yaml", environment: "prod;password=hunter2-s3cret" }',
    );
  });

  it('names no connection string, URL credential, query secret or path given as instance id or environment', () => {
    const forbidden = [
      'db-pa55word',
      'url-pa55word',
      'query-s3cret',
      'hunter2-s3cret',
      'postgres://',
      'db.internal',
      'example.org',
      '/srv/',
      'DB_URL',
      'TOKEN_URL',
    ];
    for (const { text } of [expanded, literal]) {
      for (const needle of forbidden)
        assert.equal(text.includes(needle), false, `posture mentions ${needle}`);
    }
    assert.equal(expanded.posture.instance.id, 'redacted');
    assert.equal(expanded.posture.instance.environment, 'redacted');
    assert.equal(literal.posture.instance.environment, 'redacted');
  });

  it('still reports plain names as they are', async () => {
    const plain = await postureAndCapabilities('{ id: relay-eu_1.prod, environment: Production EU }');
    assert.deepEqual(plain.posture.instance, { id: 'relay-eu_1.prod', environment: 'Production EU' });
  });
});
