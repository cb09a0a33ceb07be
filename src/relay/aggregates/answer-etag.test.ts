import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { strongEtag, weakEtag } from '../../platform/http/etag.ts';
import { ANSWER_FORMAT_VERSIONS, type AnswerTagInputs, answerEtag } from './answer-etag.ts';
import { AGGREGATE_FORMATS } from './negotiate-format.ts';

const inputs = (format: AnswerTagInputs['format']) => ({
  method: 'GET' as const,
  datasetId: 'ds',
  aggregateId: 'agg',
  definition: 'a'.repeat(64),
  versions: ['v1'],
  query: { measures: ['rows'], group_by: ['cat'], filters: [], max_rows: 10 },
  format,
});

describe('answerEtag', () => {
  it('changes a format tag when that format shape version is raised, and only that one', () => {
    for (const format of AGGREGATE_FORMATS) {
      const raised = { ...ANSWER_FORMAT_VERSIONS, [format]: ANSWER_FORMAT_VERSIONS[format] + 1 };
      for (const other of AGGREGATE_FORMATS) {
        const before = answerEtag(inputs(other));
        const after = answerEtag(inputs(other), raised);
        if (other === format) assert.notEqual(after, before, `${format} raised`);
        else assert.equal(after, before, `${other} kept when ${format} is raised`);
      }
    }
  });

  it('is weak, and answers no tag issued before (with the data time, or before the format versions)', () => {
    for (const format of AGGREGATE_FORMATS) {
      const { method, datasetId, aggregateId, definition, versions, query } = inputs(format);
      const tag = answerEtag(inputs(format));
      assert.match(tag, /^W\/"sha256:[0-9a-f]{64}"$/);
      for (const dataTime of [1_700_000_000_000, null]) {
        const parts = [
          'aggregate',
          method,
          datasetId,
          aggregateId,
          definition,
          versions,
          dataTime,
          query,
          format,
        ];
        const earlier = [...parts, ANSWER_FORMAT_VERSIONS[format]];
        for (const old of [strongEtag(parts), weakEtag(parts), strongEtag(earlier), weakEtag(earlier)]) {
          assert.notEqual(tag.slice(2), old.replace(/^W\//, ''), format);
        }
      }
    }
  });
});
