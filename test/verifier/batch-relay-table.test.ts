// POST /v1/batch-evaluations over a relay table read with `.in` (`bulk_mode: rda_in_filter`): a subject with two
// records among found ones, and lookup values a comma-separated list or a URL must carry with care.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { after, before, beforeEach, describe, it } from 'node:test';
import { nationalIdTable } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
/** The relay refuses a longer request target with 414. */
const RELAY_REQUEST_TARGET_LIMIT = 8 * 1024;

interface Item {
  input_index: number;
  status: string;
  claim_results: { satisfied: boolean }[];
  errors: { code: string; retryable: boolean }[];
}

const byNationalId = (value: string) => ({
  type: 'person',
  identifiers: [{ scheme: 'national_id', value }],
});

describe('batch evaluations over a relay table read with .in', () => {
  let rows: Record<string, unknown>[] = [];
  const targets: string[] = [];
  let upstream: FakeUpstream;
  let verifier: TestVerifier;

  before(async () => {
    upstream = await startFakeUpstream((request: IncomingMessage, response: ServerResponse) => {
      targets.push(request.url ?? '');
      nationalIdTable(rows)(request, response);
    });
    verifier = await startTestVerifier({ relays: { civil: upstream.url }, bulk: true });
  });
  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });
  beforeEach(() => {
    targets.length = 0;
  });

  const batch = async (values: readonly string[]) => {
    const response = await verifier.post(BATCH, {
      items: values.map((value) => ({ target: byNationalId(value) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body) as {
      batch_id: string;
      items: Item[];
      summary: { succeeded: number; failed: number };
    };
    const event = verifier
      .auditRecords()
      .find((record) => record.batch_id === body.batch_id && record.endpoint_kind === 'batch_evaluate');
    return { body, upstreamRequests: event?.upstream_request_count };
  };

  it('fails only the subject with two records among 99 found ones, in a few requests rather than one per subject', async () => {
    const values = Array.from({ length: 100 }, (_, index) => `FAKE-${index}`);
    rows = values.map((value) => ({ national_id: value, deceased: false }));
    rows.push({ national_id: 'FAKE-50', deceased: true });
    const { body, upstreamRequests } = await batch(values);
    assert.deepEqual(body.summary, { succeeded: 99, failed: 1 });
    for (const item of body.items) {
      if (item.input_index === 50) {
        assert.deepEqual(item.errors, [
          {
            code: 'evidence.not_available',
            title: 'Evidence not available',
            retryable: false,
            claim_id: 'person_alive',
          },
        ]);
      } else {
        assert.equal(item.status, 'succeeded');
        assert.equal(item.claim_results[0]?.satisfied, true);
      }
    }
    // The halvings that still hold FAKE-50, then it and its last neighbour alone.
    assert.equal(upstreamRequests, 15);
    assert.equal(targets.length, 15);
  });

  it('answers every item whose value holds a comma, a percent sign, non-ASCII text or 1,000 characters', async () => {
    const values = [
      'A,B',
      'B',
      '50%',
      '50%25',
      'Zoë',
      'Zoe\u0308',
      '€'.repeat(340),
      ...['x', 'y', 'z', 'w'].map((letter) => letter.repeat(1000)),
      'a+b',
      'a b',
    ];
    // Each is found, with its own answer: 'B' and 'A,B', '50%' and '50%25' and the two spellings of Zoë apart.
    rows = values.map((value, index) => ({ national_id: value, deceased: index % 2 === 1 }));
    const { body } = await batch(values);
    assert.deepEqual(
      body.items.map((item) => [item.status, item.claim_results[0]?.satisfied]),
      values.map((_, index) => ['succeeded', index % 2 === 0]),
    );
    for (const target of targets) assert.ok(target.length < RELAY_REQUEST_TARGET_LIMIT, `${target.length}`);
    // The comma is never sent as a list separator: that value is read alone.
    const commaReads = targets.filter((target) => target.includes('A%2CB'));
    assert.deepEqual(
      commaReads.map((target) => new URL(target, 'http://x').searchParams.get('national_id')),
      ['A,B'],
    );
  });
});
