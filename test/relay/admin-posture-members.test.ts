// biome-ignore-all lint/suspicious/noTemplateCurlyInString: one test writes config text with a ${VAR} reference.
// Posture members a client of the admin listener reads by name: the public identity of the instance and which
// standards artefacts the relay serves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildPosture } from '../../src/relay/admin/posture.ts';
import type { LoadedRelayConfig } from '../../src/relay/config/load-relay-config.ts';
import { loadWithInstance, opsAdminApp } from './stand-in-admin-app.ts';

interface Posture {
  instance: Record<string, string>;
  standards_artifacts: Record<string, boolean>;
}

async function postureOf(loaded: LoadedRelayConfig): Promise<Posture> {
  const admin = opsAdminApp(loaded);
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

  it('hashes the config as written: a value a ${VAR} brings in is not covered, so it cannot be guessed from it', async () => {
    const hashOf = async (owner: string) =>
      (
        (await postureOf(
          loadWithInstance('{ id: relay-1, owner: "${OWNER}" }', { OWNER: owner }),
        )) as unknown as {
          configuration: { last_config_hash: string };
        }
      ).configuration.last_config_hash;
    const first = await hashOf('Registry Office');
    assert.match(first, /^sha256:[0-9a-f]{64}$/);
    assert.equal(await hashOf('Another Office'), first);
    // An edit of the file itself does move it.
    const edited = (await postureOf(
      loadWithInstance('{ id: relay-2, owner: "${OWNER}" }', { OWNER: 'x' }),
    )) as unknown as {
      configuration: { last_config_hash: string };
    };
    assert.notEqual(edited.configuration.last_config_hash, first);
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
