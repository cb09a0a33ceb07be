import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { SourceBindingConfig } from '../config/schema.ts';
import { formEncode, recordsPath } from './records-path.ts';

const BINDING: SourceBindingConfig = {
  connector: 'registry_data_api',
  connection: 'relay',
  dataset: 'civil registry',
  entity: 'persons/2',
  lookup: { input: 'target.id', field: 'national_id' },
  fields: ['deceased', 'birth_date', 'national_id'],
};

/** What the connector sent before: a URL object and URLSearchParams. */
function viaUrl(base: string, binding: SourceBindingConfig, filter: string, value: string, limit: number) {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/v1/datasets/${encodeURIComponent(binding.dataset)}/entities/${encodeURIComponent(binding.entity)}/records`;
  url.searchParams.set(filter, value);
  url.searchParams.set('fields', [...new Set([binding.lookup.field, ...binding.fields])].sort().join(','));
  url.searchParams.set('limit', String(limit));
  return `${url.pathname}${url.search}`;
}

describe('recordsPath', () => {
  it('writes the lookup filter, the sorted fields with the lookup field once, and the limit', () => {
    assert.equal(
      recordsPath('/relay', BINDING, 'national_id', 'A B,C', 2),
      '/relay/v1/datasets/civil%20registry/entities/persons%2F2/records' +
        '?national_id=A+B%2CC&fields=birth_date%2Cdeceased%2Cnational_id&limit=2',
    );
    assert.equal(
      recordsPath('', BINDING, 'national_id.in', 'A,B', 2),
      '/v1/datasets/civil%20registry/entities/persons%2F2/records' +
        '?national_id.in=A%2CB&fields=birth_date%2Cdeceased%2Cnational_id&limit=2',
    );
  });

  it('encodes every well-formed value exactly as URLSearchParams does', () => {
    for (const text of ["!'()~*-._", ' +&=#?%/\\', 'é漢字😀', '\ud83d\ude00x', '\u0000\u007f']) {
      assert.equal(
        formEncode(text),
        new URLSearchParams([['', text]]).toString().slice(1),
        JSON.stringify(text),
      );
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        assert.equal(formEncode(text), new URLSearchParams([['', text]]).toString().slice(1));
      }),
    );
  });

  it('refuses a lone surrogate instead of sending U+FFFD in its place', () => {
    // URLSearchParams sends both as `Z%EF%BF%BD`: a lookup of the record keyed `Z\uFFFD`.
    for (const text of ['Z\ud800', 'Z\udfff', '\udc00\ud800', 'a\ud83d']) {
      assert.throws(() => formEncode(text), TypeError, JSON.stringify(text));
      assert.throws(() => recordsPath('', BINDING, 'national_id', text, 2), TypeError);
    }
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (head, tail) => {
        assert.throws(() => formEncode(`${head}\ud800${tail.replace(/^[\udc00-\udfff]/, '')}`), TypeError);
      }),
    );
  });

  it('matches the path a URL object gives for any filter and value', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        fc.integer({ min: 1, max: 500 }),
        (filter, value, limit) => {
          assert.equal(
            recordsPath('/base', BINDING, filter, value, limit),
            viaUrl('http://relay.example/base/', BINDING, filter, value, limit),
          );
        },
      ),
    );
  });
});
