// The claim catalogue over the `depends_on` graph: each claim's closure (sub-claims first, each once) and the
// scopes and inputs it gathers from them, however wide the graph a config may hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseConfigText } from '../../platform/config/load-config-file.ts';
import { loadVerifierConfigValue } from '../config/load-verifier-config.ts';
import { BASE, ENV } from '../config/verifier-config-test-support.ts';
import { buildClaimCatalog } from './build-claim-catalog.ts';

/**
 * The test config's `alive` claim under `layers` layers of `width` claims, each depending on every claim of the
 * layer below (the bottom layer on `alive`), each with a scope and a request input of its own.
 */
function layered(width: number, layers: number) {
  const raw = parseConfigText(BASE, ENV) as { evidence: { claims: unknown[] } };
  let below = ['alive'];
  for (let layer = 0; layer < layers; layer++) {
    const ids = Array.from({ length: width }, (_, i) => `l${layer}_${i}`);
    for (const id of ids) {
      raw.evidence.claims.push({
        id,
        title: id,
        version: '1',
        subject_type: 'person',
        value: { type: 'boolean' },
        required_scopes: [`scope:${id}`],
        depends_on: below,
        rule: { type: 'cel', expression: `has(ctx.target.attributes.${id.replace('_', 'x')})` },
      });
    }
    below = ids;
  }
  return loadVerifierConfigValue(raw, ENV, '/tmp').config;
}

describe('buildClaimCatalog', () => {
  it('lists each claim of a closure once, after its sub-claims, with their scopes and inputs', () => {
    const catalog = buildClaimCatalog(layered(3, 2));
    const top = catalog.claims.get('l1_0');
    assert.deepEqual(top?.closure, ['alive', 'l0_0', 'l0_1', 'l0_2', 'l1_0']);
    assert.deepEqual(top?.requiredScopes, [
      'civil:evidence',
      'scope:l0_0',
      'scope:l0_1',
      'scope:l0_2',
      'scope:l1_0',
    ]);
    assert.deepEqual(top?.targetInputs, ['target.identifiers.national_id']);
  });

  it('builds the catalogue of a wide graph of many claims, each closure holding every claim below once', () => {
    // 48 layers would not load (sub-claims nest at most 32 deep): 32 of 48 claims, 1,537 claims in all, each of the
    // top layer over 1,489. Gathering a closure by searching the list built so far took minutes here.
    const width = 48;
    const catalog = buildClaimCatalog(layered(width, 32));
    assert.equal(catalog.ordered.length, 1 + width * 32);
    for (const id of ['l31_0', `l31_${width - 1}`]) {
      const closure = catalog.claims.get(id)?.closure ?? [];
      assert.equal(closure.length, 1 + width * 31 + 1);
      assert.equal(new Set(closure).size, closure.length);
      assert.equal(closure[0], 'alive');
      assert.equal(closure.at(-1), id);
      assert.equal(catalog.claims.get(id)?.requiredScopes.length, 1 + width * 31 + 1);
    }
  });
});
