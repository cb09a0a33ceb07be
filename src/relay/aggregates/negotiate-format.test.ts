import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Problem } from '../../platform/problem/problem.ts';
import { negotiateFormat } from './negotiate-format.ts';

const byAccept = (accept: string | undefined) =>
  negotiateFormat({ f: undefined, bodyFormat: undefined, accept });
const SDMX = 'application/vnd.sdmx.data+json';

function rejects(run: () => unknown): void {
  assert.throws(
    run,
    (error: unknown) => error instanceof Problem && error.code === 'aggregate.format_unsupported',
  );
}

describe('negotiateFormat', () => {
  it('defaults to JSON without Accept, with */* and with application/json', () => {
    assert.equal(byAccept(undefined), 'json');
    assert.equal(byAccept(''), 'json');
    assert.equal(byAccept('*/*'), 'json');
    assert.equal(byAccept('application/json'), 'json');
    assert.equal(byAccept('application/*'), 'json');
  });

  it('chooses SDMX for the SDMX-JSON 2.1 media type, with or without a version', () => {
    assert.equal(byAccept(`${SDMX};version=2.1`), 'sdmx-json');
    assert.equal(byAccept(`${SDMX}; version="2.1"`), 'sdmx-json');
    assert.equal(byAccept(`${SDMX};version=2.1.0`), 'sdmx-json');
    assert.equal(byAccept(SDMX), 'sdmx-json');
    assert.equal(byAccept('APPLICATION/VND.SDMX.DATA+JSON;VERSION=2.1'), 'sdmx-json');
  });

  it('chooses CSV for text/csv and text/*', () => {
    assert.equal(byAccept('text/csv'), 'csv');
    assert.equal(byAccept('text/csv; charset=utf-8'), 'csv');
    assert.equal(byAccept('text/*'), 'csv');
  });

  it('honours q-values: highest wins, q=0 excludes even under a wildcard', () => {
    assert.equal(byAccept(`application/json;q=0.5, text/csv;q=0.9`), 'csv');
    assert.equal(byAccept(`${SDMX};version=2.1;q=0, application/json`), 'json');
    assert.equal(byAccept(`${SDMX};version=2.1;q=0, */*;q=0.1`), 'json');
    assert.equal(byAccept('*/*, application/json;q=0'), 'sdmx-json');
    assert.equal(byAccept(`text/csv;q=0.2, ${SDMX};q=0.8, application/json;q=0.5`), 'sdmx-json');
  });

  it('breaks q ties by specificity, then by header order', () => {
    assert.equal(byAccept('*/*, text/csv'), 'csv');
    assert.equal(byAccept('text/csv, application/json'), 'csv');
    assert.equal(byAccept('application/json, text/csv'), 'json');
  });

  it('rejects an Accept naming nothing it serves, SDMX of another version, or only zero qualities', () => {
    rejects(() => byAccept('application/xml'));
    rejects(() => byAccept('text/html, application/xhtml+xml'));
    rejects(() => byAccept(`${SDMX};version=1.0`));
    rejects(() => byAccept(`${SDMX};version=2.1;q=0`));
    rejects(() => byAccept('application/json;q=0, text/csv;q=0'));
    rejects(() => byAccept('application/json;q=abc'));
  });

  it('lets f win over the body format, and the body format win over Accept', () => {
    assert.equal(negotiateFormat({ f: 'csv', bodyFormat: 'sdmx-json', accept: 'application/json' }), 'csv');
    assert.equal(negotiateFormat({ f: undefined, bodyFormat: 'sdmx-json', accept: 'text/csv' }), 'sdmx-json');
    // An explicit format is honoured even when Accept names something unsupported.
    assert.equal(negotiateFormat({ f: 'json', bodyFormat: undefined, accept: 'application/xml' }), 'json');
  });

  it('rejects an unknown explicit format', () => {
    rejects(() => negotiateFormat({ f: 'xml', bodyFormat: undefined, accept: undefined }));
    rejects(() => negotiateFormat({ f: undefined, bodyFormat: 'SDMX', accept: undefined }));
    rejects(() => negotiateFormat({ f: '', bodyFormat: 'json', accept: undefined }));
  });
});
