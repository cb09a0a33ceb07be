// Posture members a client of the admin listener reads by name: the public identity of the instance and which
// standards artefacts the relay serves.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { buildPosture } from '../../src/relay/admin/posture.ts';
import { type LoadedRelayConfig, loadRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { createReloadFixture, reloadEnv } from './reload-fixture.ts';
import { standInAdminApp } from './stand-in-admin-app.ts';

interface Posture {
  instance: Record<string, string>;
  standards_artifacts: Record<string, boolean>;
}

function loadWithInstance(instance: string): LoadedRelayConfig {
  const fixture = createReloadFixture({ adminBind: '127.0.0.1:0' });
  try {
    const config = readFileSync(fixture.configPath, 'utf8');
    writeFileSync(fixture.configPath, `instance: ${instance}\n${config}`);
    return loadRelayConfig(fixture.configPath, reloadEnv());
  } finally {
    fixture.remove();
  }
}

async function postureOf(loaded: LoadedRelayConfig): Promise<Posture> {
  const unused = async () => assert.fail('no reload here');
  const admin = standInAdminApp(
    loaded,
    { reloadAll: unused, reloadTable: unused },
    {
      authenticate: () => ({
        id: 'ops',
        authMode: 'api_key',
        scopes: new Set(['relay:ops_read']),
        credentialTag: 'ops',
      }),
    },
  );
  try {
    const response = await admin.inject({ method: 'GET', url: '/admin/v1/posture?tier=restricted' });
    assert.equal(response.statusCode, 200, response.body);
    return response.json();
  } finally {
    await admin.close();
  }
}

describe('posture members', () => {
  it('reports the instance owner and jurisdiction the config declares', async () => {
    const posture = await postureOf(
      loadWithInstance('{ id: relay-1, environment: prod, owner: Civil Registry Office, jurisdiction: KE }'),
    );
    assert.deepEqual(posture.instance, {
      id: 'relay-1',
      environment: 'prod',
      owner: 'Civil Registry Office',
      jurisdiction: 'KE',
    });
  });

  it('redacts an owner or jurisdiction that is not a plain name', async () => {
    const posture = await postureOf(
      loadWithInstance(
        '{ id: relay-1, owner: "https://ops:pa55@example.org/x", jurisdiction: "/srv/k.env" }',
      ),
    );
    assert.deepEqual(posture.instance, { id: 'relay-1', owner: 'redacted', jurisdiction: 'redacted' });
  });

  it('says which standards artefacts are served: all of them from the runtime config', async () => {
    const posture = await postureOf(loadWithInstance('{ id: relay-1 }'));
    assert.deepEqual(posture.standards_artifacts, {
      metadata_index: true,
      dcat_ap: true,
      bregdcat_ap: true,
      shacl: true,
      json_schema: true,
    });
  });

  it('follows the metadata manifest when it withdraws DCAT and SHACL', () => {
    const loaded = loadWithInstance('{ id: relay-1 }');
    const standards = { dcat: false, shacl: false, json_schema: true };
    const manifest = { manifest: { catalog: { standards } } } as unknown as LoadedRelayConfig['manifest'];
    const posture = buildPosture({ ...loaded, manifest }, []) as unknown as Posture;
    assert.deepEqual(posture.standards_artifacts, {
      metadata_index: true,
      dcat_ap: false,
      bregdcat_ap: false,
      shacl: false,
      json_schema: true,
    });
  });
});
