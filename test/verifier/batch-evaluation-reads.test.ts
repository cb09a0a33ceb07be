// POST /v1/batch-evaluations and its upstream reads: per-item outcomes, `.in` batching with one request per source
// binding, de-duplication, fallback when a relay refuses the bulk form, unavailable sources, coalesced singles.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ULID_PATTERN } from '../helpers/http-checks.ts';
import { correlationIdHash, EVIDENCE_PURPOSE } from '../helpers/verifier-harness.ts';
import { type Row, readDemoData } from '../relay/read-demo-data.ts';
import { BATCH, type Item, person, rowReads, useBatchEvaluations } from './batch-evaluations-fixture.ts';

describe('batch evaluations', () => {
  const setup = useBatchEvaluations();

  it('evaluates 100 subjects with one upstream request per source binding when .in applies', async () => {
    const { civil, social, bulk, heads } = setup;
    const civilBefore = rowReads(civil).length;
    const socialBefore = rowReads(social).length;
    const subjects = heads.slice(0, 100);
    const response = await bulk.post(
      BATCH,
      { items: subjects.map((row) => ({ target: person(row) })), claims: ['eligible'] },
      { headers: { 'x-request-id': 'corr-batch-100' } },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['content-type'], 'application/json');
    const body = JSON.parse(response.body);
    assert.match(body.batch_id, ULID_PATTERN);
    assert.equal(body.status, 'completed');
    assert.deepEqual(body.claims, ['eligible']);
    assert.deepEqual(body.summary, { succeeded: 100, failed: 0 });
    const items = body.items as Item[];
    assert.deepEqual(
      items.map((item) => item.input_index),
      subjects.map((_, index) => index),
    );
    const data = await readDemoData();
    for (const [index, item] of items.entries()) {
      const row = subjects[index] as Row;
      const household = data.households.find((entry) => entry.head_of_household_person_id === row.person_id);
      assert.equal(item.status, 'succeeded');
      assert.match(item.evaluation_id ?? '', ULID_PATTERN);
      assert.deepEqual(item.errors, []);
      const [result] = item.claim_results;
      assert.equal(result?.claim_id, 'eligible');
      assert.equal(result?.value_type, 'boolean');
      assert.equal(result?.disclosure, 'predicate');
      assert.equal(result?.satisfied, household?.enrollment_status === 'enrolled');
      assert.equal(result?.result_id, `${item.evaluation_id}:eligible`);
      const provenance = result?.provenance as { used: { source_count: number } } | undefined;
      assert.equal(provenance?.used.source_count, 2);
    }
    assert.equal(new Set(items.map((item) => item.evaluation_id)).size, 100);

    const civilReads = rowReads(civil).slice(civilBefore);
    const socialReads = rowReads(social).slice(socialBefore);
    assert.equal(civilReads.length, 1, 'one civil registry request for 100 subjects');
    assert.equal(socialReads.length, 1, 'one social protection request for 100 subjects');
    assert.ok(Object.hasOwn(civilReads[0]?.query_params as object, 'national_id.in'));
    assert.ok(Object.hasOwn(socialReads[0]?.query_params as object, 'head_of_household_person_id.in'));
    assert.equal(civilReads[0]?.row_count, 100);
    for (const read of [...civilReads, ...socialReads]) {
      assert.equal(read.purpose, EVIDENCE_PURPOSE);
      assert.equal(read.client_request_id, 'corr-batch-100');
    }
    assert.ok(!response.body.includes(String(subjects[0]?.national_id)), 'no identifier in the response');
  });

  it('fails only the items that fail: unknown subjects, missing identifiers, malformed targets', async () => {
    const { civil, bulk, heads, deceased } = setup;
    const civilBefore = rowReads(civil).length;
    const [first, second] = heads as [Row, Row];
    const response = await bulk.post(BATCH, {
      items: [
        { target: person(first) },
        { target: { type: 'person', identifiers: [{ scheme: 'national_id', value: 'FAKE-000000' }] } },
        { target: { type: 'person', identifiers: [{ scheme: 'person_id', value: 'per-1' }] } },
        {
          target: {
            type: 'person',
            identifiers: [
              { scheme: 'national_id', value: 'A' },
              { scheme: 'national_id', value: 'B' },
            ],
          },
        },
        { target: { type: 'person' } },
        { target: person(deceased) },
        { target: person(second) },
      ],
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    const items = body.items as Item[];
    assert.deepEqual(
      items.map((item) => item.status),
      ['succeeded', 'failed', 'failed', 'failed', 'failed', 'succeeded', 'succeeded'],
    );
    assert.deepEqual(
      items.map((item) => item.errors[0]?.code ?? null),
      [
        null,
        'evidence.not_available',
        'target.identifier_missing',
        'request.invalid',
        'target.attributes_insufficient',
        null,
        null,
      ],
    );
    assert.ok(items.every((item) => item.errors.every((error) => error.retryable === false)));
    // An item's failure that is one claim's names it; a target the request cannot use names none.
    assert.deepEqual(
      items.map((item) => item.errors[0]?.claim_id ?? null),
      [null, 'person_alive', 'person_alive', null, null, null, null],
    );
    assert.equal(items[1]?.evaluation_id, undefined);
    assert.match(items[1]?.target_ref?.handle ?? '', /^amref:v1:/);
    assert.equal(items[4]?.target_ref, null);
    assert.equal(items[5]?.claim_results[0]?.satisfied, false);
    assert.deepEqual(body.summary, { succeeded: 3, failed: 4 });
    assert.equal(rowReads(civil).length - civilBefore, 1, 'the unknown subject rode in the same request');
  });

  it('reads a subject named by several items once, even without .in', async () => {
    const { plainCivil, plain, heads } = setup;
    const before = rowReads(plainCivil).length;
    const [first, second] = heads as [Row, Row];
    const response = await plain.post(BATCH, {
      items: [first, first, second, first].map((row) => ({ target: person(row) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 4, failed: 0 });
    const reads = rowReads(plainCivil).slice(before);
    assert.equal(reads.length, 2, 'one read per distinct subject');
    assert.ok(reads.every((read) => Object.hasOwn(read.query_params as object, 'national_id')));
  });

  it('falls back to single reads when the relay refuses the .in form, with the same results', async () => {
    const { plainCivil, refused, heads } = setup;
    const before = rowReads(plainCivil).length;
    const subjects = heads.slice(0, 5);
    const response = await refused.post(BATCH, {
      items: subjects.map((row) => ({ target: person(row) })),
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 5, failed: 0 });
    assert.ok((body.items as Item[]).every((item) => item.claim_results[0]?.satisfied === true));
    const reads = rowReads(plainCivil).slice(before);
    assert.equal(reads.length, 6, 'one refused .in request, then one read per subject');
    assert.equal(reads[0]?.status_code, 400);
    assert.equal(reads[0]?.error_code, 'filter.not_allowed');
    const record = refused.auditRecords().find((entry) => entry.endpoint_kind === 'batch_evaluate');
    assert.equal(record?.upstream_request_count, 6);
  });

  it('reports a source that is not configured per item, not as retryable, and still answers 200', async () => {
    const { bulk, heads } = setup;
    const response = await bulk.post(BATCH, {
      items: [{ target: person(heads[0] as Row) }, { target: person(heads[1] as Row) }],
      claims: ['ledger_entry'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const body = JSON.parse(response.body);
    assert.deepEqual(body.summary, { succeeded: 0, failed: 2 });
    assert.equal(body.items.length, 2);
    for (const item of body.items as Item[]) {
      assert.deepEqual(item.errors, [
        {
          code: 'source.unavailable',
          title: 'Source unavailable',
          // Only a new configuration changes it.
          retryable: false,
          claim_id: 'ledger_entry',
        },
      ]);
    }
  });

  it('reads the subjects of single evaluations arriving together with shared `.in` requests', async () => {
    const { civil, coalescing, heads } = setup;
    const civilBefore = rowReads(civil).length;
    const subjects = heads.slice(10, 30);
    const data = await readDemoData();
    const responses = await Promise.all(
      subjects.map((row, index) =>
        coalescing.evaluate(
          { target: person(row), claims: ['eligible'] },
          { headers: { 'x-request-id': `corr-single-${index}` } },
        ),
      ),
    );
    for (const [index, response] of responses.entries()) {
      assert.equal(response.statusCode, 200, response.body);
      const row = subjects[index] as Row;
      const household = data.households.find((entry) => entry.head_of_household_person_id === row.person_id);
      const [result] = JSON.parse(response.body).results as { satisfied: boolean }[];
      assert.equal(result?.satisfied, household?.enrollment_status === 'enrolled', `subject ${index}`);
    }
    const civilReads = rowReads(civil).slice(civilBefore);
    assert.ok(
      civilReads.length < subjects.length / 2,
      `${civilReads.length} civil reads for ${subjects.length}`,
    );
    assert.ok(civilReads.some((read) => Object.hasOwn(read.query_params as object, 'national_id.in')));
    // Every evaluation keeps its own audit event, whoever's request id went upstream.
    const events = coalescing.auditRecords().filter((event) => String(event.request_id ?? '').length > 0);
    for (let index = 0; index < subjects.length; index++) {
      assert.ok(
        events.some((event) => event.correlation_id_hash === correlationIdHash(`corr-single-${index}`)),
        `no audit event for corr-single-${index}`,
      );
    }
  });
});
