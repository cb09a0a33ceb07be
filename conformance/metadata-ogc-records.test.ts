// OGC API Records 1.0: the relay's and the publisher's record bodies validate against the official schemas
// (YAML building blocks, Features 1.0 schemas mapped to their schemas.opengis.net URLs).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { loadManifestFile } from '../src/relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../src/relay/metadata/model/build-model-from-manifest.ts';
import { renderOgcRecordCollection } from '../src/relay/metadata/renderers/render-ogc-records.ts';
import { DEMO_DIR, startDemoRelay, type TestRelay } from '../test/helpers/relay-harness.ts';
import { FEATURES_BASE, RECORDS_BASE, recordsAjv } from './ogc/records-ajv.ts';
import { standardsDir } from './standards-dir.ts';

interface RecordCollection {
  type: string;
  numberReturned: number;
  features: Record<string, unknown>[];
}

describe('OGC API Records bodies', () => {
  const ajv = recordsAjv();
  const validateRecord = ajv.getSchema(`${RECORDS_BASE}recordGeoJSON.yaml`);
  // The Records items response is a Features collection whose features are records. Features 1.0's own feature
  // schema demands a geometry object, while a record's geometry may be null; the envelope is therefore checked
  // against the Features collection schema without its item schema, and each feature against recordGeoJSON.
  const collectionSchema = parse(
    readFileSync(
      join(standardsDir(), 'ogcapi-features/1.0.1/openapi/schemas/featureCollectionGeoJSON.yaml'),
      'utf8',
    ),
  ) as { properties: { features: Record<string, unknown> } };
  delete collectionSchema.properties.features.items;
  const validateEnvelope = ajv.compile({
    // Under the Features base URL, so the collection schema's relative `$ref`s resolve as in its own file.
    $id: `${FEATURES_BASE}records-collection-envelope.yaml`,
    allOf: [
      collectionSchema,
      { properties: { features: { items: { $ref: `${RECORDS_BASE}recordGeoJSON.yaml` } } } },
    ],
  });
  let relay: TestRelay;
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay.close());

  it('the official record example passes the validator used for ours', () => {
    const example = JSON.parse(
      readFileSync(join(standardsDir(), 'ogcapi-records/1.0.0/examples/json/record.json'), 'utf8'),
    );
    assert.ok(validateRecord);
    assert.equal(validateRecord(example), true, JSON.stringify(validateRecord.errors));
  });

  it('the relay collection and each record validate, link-free, with geometry present', async () => {
    const response = await relay.get('/metadata/ogc/records', { as: 'catalog_viewer' });
    assert.equal(response.headers['content-type'], 'application/geo+json');
    const collection = response.json() as RecordCollection;
    assert.equal(validateEnvelope(collection), true, JSON.stringify(validateEnvelope.errors));
    assert.equal(collection.numberReturned, collection.features.length);
    assert.equal(collection.features.length, 3);
    assert.ok(!('links' in collection));
    for (const record of collection.features) {
      assert.ok(validateRecord?.(record), JSON.stringify(validateRecord?.errors));
      assert.ok('geometry' in record);
      assert.ok(!('links' in record));
      const one = await relay.get(`/metadata/ogc/records/${record.id}`, { as: 'catalog_viewer' });
      assert.deepEqual(one.json(), record);
    }
  });

  it('published records validate too', () => {
    const model = buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);
    const collection = renderOgcRecordCollection(model);
    assert.equal(validateEnvelope(collection), true, JSON.stringify(validateEnvelope.errors));
    assert.deepEqual(
      collection.features.map((record) => record.id),
      model.datasets.map((dataset) => dataset.id),
    );
    assert.equal(collection.features.length, 3);
    for (const record of collection.features)
      assert.ok(validateRecord?.(record), JSON.stringify(validateRecord?.errors));
  });

  it('the validator rejects a record without geometry or with a malformed time', () => {
    const model = buildModelFromManifest(loadManifestFile(join(DEMO_DIR, 'relay.metadata.yaml')).manifest);
    const [record] = renderOgcRecordCollection(model).features;
    const { geometry: _geometry, ...withoutGeometry } = record as Record<string, unknown>;
    assert.equal(validateRecord?.(withoutGeometry), false);
    assert.equal(validateRecord?.({ ...record, time: { date: '30/06/2025' } }), false);
  });
});
