import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import type { CatalogEntity } from '../catalog/catalog.ts';
import { buildRelayAuditRecord } from './build-relay-audit-record.ts';

const SECRET = Buffer.from('audit-secret-for-record-tests-0123456789');
const entity = {
  name: 'persons',
  datasetId: 'civil_registry',
  tableId: 'people',
  fieldByName: new Map([['national_id', { sensitive: true }]]),
} as unknown as CatalogEntity;

function requestWith(values: {
  purpose: string;
  clientId: string;
  ip: string;
  dataset: string;
}): RouteRequest {
  return {
    id: '01M8679SD2QF1ECJ148KFZ52QZ',
    method: 'GET',
    url: '/x',
    ip: values.ip,
    headers: { 'data-purpose': values.purpose },
    params: { dataset_id: values.dataset, entity: 'persons' },
    query: {},
    routeOptions: { url: '/v1/datasets/:dataset_id/entities/:entity/records' },
    ctx: {
      requestId: '01M8679SD2QF1ECJ148KFZ52QZ',
      startedAt: 1_000,
      clientRequestId: values.clientId,
      principal: { id: 'caseworker', authMode: 'api_key', scopes: new Set(), credentialTag: 'sha256:x' },
      audit: {
        endpointKind: 'rows',
        datasetId: values.dataset,
        entity,
        scopesUsed: ['civil_registry:rows'],
        query: { national_id: 'FAKE-1', 'weird"name': 'x' },
        rowCount: 1,
      },
      errorCode: 'auth.scope_denied',
    },
  } as unknown as RouteRequest;
}

describe('relay audit record', () => {
  it('is JSON whose fields hold exactly what was sent, whatever characters it holds', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.string(),
        fc.string({ unit: 'binary' }),
        (purpose, clientId, ip, dataset) => {
          const text = buildRelayAuditRecord(
            requestWith({ purpose, clientId, ip, dataset }),
            { statusCode: 403 } as RouteReply,
            { secret: SECRET, now: 1_250 },
          );
          const record = JSON.parse(text) as Record<string, unknown>;
          // Byte for byte what JSON.stringify writes for the same record.
          assert.equal(text, JSON.stringify(record));
          assert.equal(record.purpose, JSON.parse(JSON.stringify(purpose)));
          assert.equal(record.client_request_id, JSON.parse(JSON.stringify(clientId)));
          assert.equal(record.remote_addr, ip);
          assert.equal(
            record.path,
            JSON.parse(JSON.stringify(`/v1/datasets/${dataset}/entities/persons/records`)),
          );
        },
      ),
    );
  });

  it('keeps values of sensitive fields out and states the outcome', () => {
    const text = buildRelayAuditRecord(
      requestWith({ purpose: 'p', clientId: 'c', ip: '127.0.0.1', dataset: 'civil_registry' }),
      { statusCode: 403 } as RouteReply,
      { secret: SECRET, now: Date.parse('2026-11-24T07:28:37.321Z') },
    );
    assert.ok(!text.includes('FAKE-1'));
    const record = JSON.parse(text) as Record<string, unknown>;
    assert.equal(record.ts, '2026-11-24T07:28:37.321Z');
    assert.equal(record.status_code, 403);
    assert.equal(record.error_code, 'auth.scope_denied');
    assert.deepEqual(record.scopes_used, ['civil_registry:rows']);
    // A name that is not a field of the entity is written as a keyed hash of itself.
    const [known, unknown] = Object.keys(record.query_params as object);
    assert.equal(known, 'national_id');
    assert.match(unknown ?? '', /^hmac-sha256:[0-9a-f]{64}$/);
    assert.ok(!text.includes('weird'));
    assert.match(
      (record.query_params as { national_id: { value_hash: string } }).national_id.value_hash,
      /^hmac-sha256:[0-9a-f]{64}$/,
    );
    assert.equal(record.duration_ms, Date.parse('2026-11-24T07:28:37.321Z') - 1_000);
  });

  it('redacts a query shared between requests for the entity each request read', () => {
    const shared = Object.freeze({ national_id: 'FAKE-1' });
    const other = { ...entity, name: 'others' } as unknown as CatalogEntity;
    const hashFor = (target: CatalogEntity) => {
      const request = requestWith({
        purpose: 'p',
        clientId: 'c',
        ip: '127.0.0.1',
        dataset: 'civil_registry',
      });
      Object.assign(request.ctx.audit, { entity: target, query: shared });
      const text = buildRelayAuditRecord(request, { statusCode: 200 } as RouteReply, {
        secret: SECRET,
        now: 2_000,
      });
      return (JSON.parse(text) as { query_params: { national_id: { value_hash: string } } }).query_params
        .national_id.value_hash;
    };
    const first = hashFor(entity);
    assert.equal(hashFor(entity), first);
    assert.notEqual(hashFor(other), first);
    assert.equal(hashFor(entity), first);
  });
});
