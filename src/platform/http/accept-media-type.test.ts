import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { acceptsMediaType } from './accept-media-type.ts';

const JSON_LD = 'application/ld+json';

describe('acceptsMediaType', () => {
  it('accepts without Accept, with a blank one, by name, by type and by the full wildcard', () => {
    for (const accept of [undefined, '', '  ', JSON_LD, 'APPLICATION/LD+JSON', 'application/*', '*/*']) {
      assert.equal(acceptsMediaType(accept, JSON_LD), true, String(accept));
    }
  });

  it('takes application/json for a +json type, and never the other way round', () => {
    assert.equal(acceptsMediaType('application/json', JSON_LD), true);
    assert.equal(acceptsMediaType('application/json', 'application/schema+json'), true);
    assert.equal(acceptsMediaType(JSON_LD, 'application/json'), false);
    assert.equal(acceptsMediaType('application/geo+json', 'application/schema+json'), false);
  });

  it('refuses what names another type, or only a wildcard it does not fall under', () => {
    for (const accept of ['text/turtle', 'text/html', 'text/*', 'application/rdf+xml', '*/json', 'junk']) {
      assert.equal(acceptsMediaType(accept, JSON_LD), false, accept);
    }
  });

  it('lets the most specific range decide, by its q-value', () => {
    assert.equal(acceptsMediaType('text/turtle, application/ld+json;q=0.5', JSON_LD), true);
    assert.equal(
      acceptsMediaType('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', JSON_LD),
      true,
    );
    assert.equal(acceptsMediaType(`${JSON_LD};q=0, */*`, JSON_LD), false);
    assert.equal(acceptsMediaType('application/json;q=0, application/*', JSON_LD), false);
    assert.equal(acceptsMediaType(`*/*;q=0, ${JSON_LD}`, JSON_LD), true);
    assert.equal(acceptsMediaType('application/*;q=0.0', JSON_LD), false);
    assert.equal(
      acceptsMediaType(`${JSON_LD}; q=1.000; profile="http://www.w3.org/ns/json-ld#compacted"`, JSON_LD),
      true,
    );
  });

  it('reads a malformed q-value as 0', () => {
    for (const q of ['abc', '1.5', '-1', '0.1234', '']) {
      assert.equal(acceptsMediaType(`${JSON_LD};q=${q}`, JSON_LD), false, q);
    }
  });

  it('ignores the parameters of the offered type', () => {
    assert.equal(acceptsMediaType('application/json', 'application/json; charset=utf-8'), true);
  });
});
