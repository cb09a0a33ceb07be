import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../platform/auth/principal.ts';
import { Problem } from '../../platform/problem/problem.ts';
import { testAggregate, testCatalog } from './aggregate-test-support.ts';
import { canDiscover, lookupAggregate, requireDiscovery, requireExecution } from './authorize-aggregate.ts';

const principal = (...scopes: string[]): Principal => ({
  id: 'p',
  authMode: 'api_key',
  scopes: new Set(scopes),
  credentialTag: 't',
});

function denied(run: () => unknown, code: string, detail?: string): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof Problem);
    assert.equal(error.code, code);
    if (detail !== undefined) assert.equal(error.detail, detail);
    return true;
  });
}

describe('aggregate authorisation', () => {
  const catalog = testCatalog({ readScope: 'shop:rows_owners', requirePurpose: true });
  const aggregate = testAggregate(catalog, 'open');

  it('knows every entity a field path reads, and takes purpose from any of them', () => {
    assert.deepEqual(
      aggregate.entitiesRead.map((entity) => entity.name),
      ['items', 'owners'],
    );
    assert.equal(aggregate.requirePurpose, true);
    assert.equal(testAggregate(testCatalog(), 'open').requirePurpose, false);
  });

  it('needs the aggregate scope and the rows scope of the source and of each related entity', () => {
    denied(
      () => requireExecution(principal('shop:rows', 'shop:rows_owners'), aggregate),
      'auth.scope_denied',
      'required scope: shop:aggregate',
    );
    denied(
      () => requireExecution(principal('shop:aggregate', 'shop:rows'), aggregate),
      'auth.scope_denied',
      'required scope: shop:rows_owners',
    );
    denied(
      () => requireExecution(principal('shop:aggregate', 'shop:rows_owners'), aggregate),
      'auth.scope_denied',
      'required scope: shop:rows',
    );
    assert.deepEqual(
      requireExecution(principal('shop:aggregate', 'shop:rows', 'shop:rows_owners'), aggregate),
      ['shop:aggregate', 'shop:rows', 'shop:rows_owners'],
    );
    const aggregateOnly = { ...aggregate, aggregateOnly: true };
    assert.deepEqual(requireExecution(principal('shop:aggregate'), aggregateOnly), ['shop:aggregate']);
  });

  it('lets the aggregate scope, or the metadata scopes of the aggregate and of every entity it reads, discover', () => {
    assert.equal(canDiscover(principal('shop:aggregate'), aggregate), true);
    assert.equal(canDiscover(principal('shop:metadata'), aggregate), true);
    assert.equal(canDiscover(principal('shop:rows', 'shop:admin'), aggregate), false);
    const ownMetadata = { ...aggregate, scopes: { ...aggregate.scopes, metadata: 'shop:admin' } };
    assert.equal(canDiscover(principal('shop:metadata'), ownMetadata), false);
    assert.deepEqual(requireDiscovery(principal('shop:metadata', 'shop:admin'), ownMetadata), [
      'shop:admin',
      'shop:metadata',
    ]);
    // Not discoverable: as unknown (a 403 would confirm that it exists).
    denied(() => requireDiscovery(principal('shop:rows'), aggregate), 'schema.unknown_aggregate');
  });

  it('checks the dataset scope before the aggregate exists', () => {
    denied(
      () => lookupAggregate(catalog, principal('other:aggregate'), 'shop', 'open', 'aggregate'),
      'auth.scope_denied',
      'required scope: shop:aggregate',
    );
    denied(
      () => lookupAggregate(catalog, principal('other:aggregate'), 'shop', 'nope', 'aggregate'),
      'auth.scope_denied',
    );
    denied(
      () => lookupAggregate(catalog, principal('shop:rows'), 'shop', 'nope', 'aggregate'),
      'schema.unknown_aggregate',
    );
    assert.equal(lookupAggregate(catalog, principal('shop:rows'), 'shop', 'open', 'aggregate').id, 'open');
  });
});
