import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { applyRule, type RuleInputs } from './apply-rule.ts';
import { claimsConfig, ONE_WORKER_CEL } from './cel-test-support.ts';
import { createCelEvaluator } from './create-cel-evaluator.ts';

const CLAIMS = `
    - { id: whole, title: W, version: "1", subject_type: p, value: { type: any },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [deceased, birth_date] } },
        rule: { type: cel, expression: "source.p" } }
    - { id: peek, title: P, version: "1", subject_type: p, value: { type: boolean },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [deceased] } },
        rule: { type: cel, expression: "'national_id' in source.p || 'secret' in source.p" } }
    - { id: note, title: N, version: "1", subject_type: p, value: { type: any },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [note] } },
        rule: { type: extract, source: p, field: note } }
    - { id: halves, title: H, version: "1", subject_type: p, value: { type: integer },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [size] } },
        rule: { type: cel, expression: "double(source.p.size) / 2.0" } }
    - { id: count, title: C, version: "1", subject_type: p, value: { type: integer },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [size] } },
        rule: { type: cel, expression: "source.p.size / 2" } }
    - { id: ratio, title: R, version: "1", subject_type: p, value: { type: number },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [size] } },
        rule: { type: cel, expression: "double(source.p.size) / 2.0" } }
    - { id: born, title: B, version: "1", subject_type: p, value: { type: date },
        source_bindings: { p: { connector: registry_data_api, connection: c, dataset: d, entity: e,
          lookup: { input: target.id, field: national_id }, fields: [birth_date] } },
        rule: { type: extract, source: p, field: birth_date } }
`;

const config = claimsConfig(CLAIMS);
const claim = (id: string) => config.evidence.claims.find((entry) => entry.id === id) as never;

/** What a relay may answer: the declared field, the lookup field it is always asked for, and more. */
const ROW = { deceased: false, national_id: 'FAKE-1', secret: 's3cr3t' };

const inputs: RuleInputs = {
  rows: new Map([['p', ROW]]),
  dependencies: new Map(),
  target: { type: 'p', id: 'FAKE-1', identifiers: new Map(), attributes: {} },
  purpose: 'https://p.example/x',
  today: '2026-01-01',
};

describe('a CEL rule sees only the binding fields', () => {
  const cel = createCelEvaluator(ONE_WORKER_CEL);
  after(() => cel.close());

  it('binds source.<alias> to the listed fields, not the lookup field or extra columns', async () => {
    assert.deepEqual(await applyRule(claim('whole'), inputs, cel), { deceased: false });
    assert.equal(await applyRule(claim('peek'), inputs, cel), false);
  });

  it('answers an integer claim only with a CEL int, never a whole-valued double', async () => {
    const sized: RuleInputs = { ...inputs, rows: new Map([['p', { size: 6 }]]) };
    assert.equal(await applyRule(claim('count'), sized, cel), 3);
    assert.equal(await applyRule(claim('ratio'), sized, cel), 3);
    // 6 / 2.0 is the double 3.0: an integer claim declared over it is a rule mistake, not the int 3.
    await assert.rejects(applyRule(claim('halves'), sized, cel), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'claim.rule_evaluation_failed');
      return true;
    });
  });

  it('bounds an extracted value as a CEL result is bounded (cel.max_result_json_bytes)', async () => {
    const withNote = (note: unknown): RuleInputs => ({ ...inputs, rows: new Map([['p', { note }]]) });
    assert.equal(await applyRule(claim('note'), withNote('n'.repeat(1000)), cel), 'n'.repeat(1000));
    for (const note of ['n'.repeat(1023), '\u0001'.repeat(200), { list: ['n'.repeat(1100)] }]) {
      await assert.rejects(applyRule(claim('note'), withNote(note), cel), (error: unknown) => {
        assert.equal((error as { code?: string }).code, 'claim.rule_evaluation_failed');
        return true;
      });
    }
  });

  it('answers a date claim only with text that starts with a calendar date that exists', async () => {
    const born = (birthDate: unknown): RuleInputs => ({
      ...inputs,
      rows: new Map([['p', { birth_date: birthDate }]]),
    });
    for (const accepted of ['2024-02-29', '2024-02-29T10:00:00Z', null]) {
      assert.equal(await applyRule(claim('born'), born(accepted), cel), accepted);
    }
    for (const refused of ['2023-02-29', '2024-04-31', '2024-13-01', '2024-00-10', 20240101]) {
      await assert.rejects(applyRule(claim('born'), born(refused), cel), (error: unknown) => {
        assert.equal((error as { code?: string }).code, 'claim.rule_evaluation_failed', String(refused));
        return true;
      });
    }
  });
});
