// The registry_data_api connector's log when a source refuses its bulk reads (`bulk_mode: rda_in_filter`).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { capturedLog } from '../../../test/helpers/captured-log.ts';
import { BINDING, failure, json, useConnectorUpstream } from './relay-connector-fixture.ts';

describe('registry_data_api connector: bulk reads refused', () => {
  const upstream = useConnectorUpstream();
  const BULK = { binding: BINDING, purpose: 'https://p.example/x', requestId: 'corr-b' };

  it('warns once per binding and reason that the source refuses bulk reads, naming no value', async () => {
    const log = capturedLog();
    const reader = upstream.connector(
      { bulk_mode: 'rda_in_filter', bulk_max_values: 50 },
      { logger: log.logger },
    );
    let code: unknown = 'entity.filter_required';
    upstream.handler = (_request, response) =>
      json(response, 400, { code }, { 'content-type': 'application/problem+json' });
    for (let batch = 0; batch < 3; batch++)
      await reader.readMany({ ...BULK, values: ['SECRET-1', 'SECRET-2'] });
    code = 'a code\nwith a line break';
    await reader.readMany({ ...BULK, values: ['SECRET-1', 'SECRET-2'] });
    reader.close();
    const lines = log.records();
    const warnings = lines.filter(
      (line) =>
        line.msg === 'source refuses bulk reads for this binding: its values are read one request each',
    );
    assert.deepEqual(
      warnings.map((line) => [
        line.connection,
        line.dataset,
        line.entity,
        line.field,
        line.status,
        line.code,
      ]),
      [
        ['relay', BINDING.dataset, BINDING.entity, BINDING.lookup.field, 400, 'entity.filter_required'],
        // A reason that is not a code is told by its status.
        ['relay', BINDING.dataset, BINDING.entity, BINDING.lookup.field, 400, 'http_400'],
      ],
    );
    assert.ok(!JSON.stringify(lines).includes('SECRET'), 'no looked-up value is logged');
  });

  it('fails every value with one request when the source has no such collection (404), as single reads would', async () => {
    const log = capturedLog();
    const reader = upstream.connector({ bulk_mode: 'rda_in_filter' }, { logger: log.logger });
    upstream.handler = (_request, response) =>
      json(
        response,
        404,
        { code: 'schema.unknown_resource' },
        { 'content-type': 'application/problem+json' },
      );
    const problem = await failure(reader.readMany({ ...BULK, values: ['A-1', 'A-2', 'A-3', 'A-4'] }));
    reader.close();
    assert.equal(problem.code, 'source.unavailable');
    assert.equal(upstream.requests.length, 1, 'no request per value');
    // The bulk form was not refused: the source failed, as it would each single read.
    assert.deepEqual(
      log.records().map((line) => [line.msg, line.reason]),
      [['source read failed', 'source.http_404']],
    );
  });
});
