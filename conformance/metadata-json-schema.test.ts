// JSON Schema 2020-12: every entity and form schema the relay serves or the publisher writes is a valid schema
// under the official 2020-12 meta-schema (the one Ajv bundles), declares that dialect, and compiles.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { staticMetadataLinks } from '../src/relay/metadata/model/metadata-links.ts';
import { renderEntityJsonSchema } from '../src/relay/metadata/renderers/render-entity-json-schema.ts';
import { renderFormJsonSchema } from '../src/relay/metadata/renderers/render-form-json-schema.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const DIALECT = 'https://json-schema.org/draft/2020-12/schema';

describe('published JSON Schemas (Draft 2020-12)', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const metaSchema = ajv.getSchema(DIALECT);
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  function check(schema: Record<string, unknown>, label: string): void {
    assert.ok(metaSchema, 'Ajv bundles the 2020-12 meta-schema');
    assert.equal(schema.$schema, DIALECT, label);
    assert.equal(metaSchema(schema), true, `${label}: ${JSON.stringify(metaSchema.errors)}`);
    assert.doesNotThrow(() => new Ajv2020({ strict: false }).compile(schema), label);
  }

  it('the meta-schema rejects a malformed schema (the check has teeth)', () => {
    assert.equal(metaSchema?.({ type: 'strnig', required: 'id' }), false);
  });

  it('every entity schema served by the relay, under both routes', async () => {
    const catalog = (await relay.get('/metadata/catalog', { as: 'catalog_viewer' })).json() as {
      datasets: { id: string; entities: { name: string }[] }[];
    };
    let count = 0;
    for (const dataset of catalog.datasets) {
      for (const entity of dataset.entities) {
        for (const path of [
          `/metadata/schema/${dataset.id}/${entity.name}/schema.json`,
          `/metadata/datasets/${dataset.id}/entities/${entity.name}/schema`,
        ]) {
          const response = await relay.get(path, { as: 'catalog_viewer' });
          assert.equal(response.headers['content-type'], 'application/schema+json');
          check(response.json(), path);
          count++;
        }
      }
    }
    assert.equal(count, 10);
  });

  it('the form schema served by the relay and every published schema', async () => {
    const form = await relay.get('/metadata/forms/cash-transfer-application/schema.json', {
      as: 'caseworker',
    });
    check(form.json(), 'relay form schema');
    const model = buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);
    const links = staticMetadataLinks('https://static.example.org');
    for (const dataset of model.datasets)
      for (const entity of dataset.entities) check(renderEntityJsonSchema(model, entity, links), entity.name);
    for (const each of model.forms) check(renderFormJsonSchema(model, each, links), each.id);
  });
});
