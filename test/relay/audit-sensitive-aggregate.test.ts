// An aggregate filter on a sensitive field, as the relay audit records it: the value kept only as a keyed hash.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { keyedHash } from '../../src/platform/audit/keyed-hash.ts';
import { assertRequestId } from '../helpers/http-checks.ts';
import { AUDIT_SECRET, startDemoRelay } from '../helpers/relay-harness.ts';

const SECRET = Buffer.from(AUDIT_SECRET, 'utf8');

describe('relay audit records: sensitive aggregate filters', () => {
  it('keeps the value of an aggregate filter on a sensitive field only as a keyed hash', async () => {
    // payment_channel marked sensitive: the payments_by_district aggregate still allows filtering on it.
    const sensitive = await startDemoRelay({
      edit: (text) => {
        const plain = '{ name: payment_channel, type: string, nullable: false }';
        assert.ok(text.includes(plain));
        return text.replace(
          plain,
          '{ name: payment_channel, type: string, nullable: false, sensitive: true }',
        );
      },
    });
    try {
      const response = await sensitive.get(
        '/v1/datasets/social_protection/aggregates/payments_by_district?payment_channel=mobile_money&payment_status=paid',
        { as: 'analyst' },
      );
      assert.equal(response.statusCode, 200, response.body);
      const id = assertRequestId(response);
      const [record, ...more] = sensitive.auditRecords().filter((entry) => entry.request_id === id);
      assert.equal(more.length, 0, `records for ${id}`);
      assert.deepEqual(record?.query_params, {
        'payment_channel.eq': {
          op: 'eq',
          value_hash: keyedHash(SECRET, 'query:social_protection:payments:payment_channel', 'mobile_money'),
        },
        'payment_status.eq': { op: 'eq' },
        f: { op: 'param' },
        measures: { op: 'param' },
        group_by: { op: 'param' },
        max_rows: { op: 'param' },
      });
      assert.ok(!readFileSync(sensitive.auditPath, 'utf8').includes('mobile_money'));
    } finally {
      await sensitive.close();
    }
  });
});
