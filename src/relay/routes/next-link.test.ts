import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { RouteRequest } from '../../platform/http/route-types.ts';
import { nextLink, parsedNextLink } from './next-link.ts';

const link = (url: string, cursor: string) => nextLink({ url } as RouteRequest, cursor);
/** A link, or the error a target no URL can be made of raises. */
const outcome = (make: () => string) => {
  try {
    return make();
  } catch (error) {
    return `threw ${(error as Error).name}`;
  }
};

describe('next page link', () => {
  it('keeps the path, sorts the parameters by name and puts the new cursor last', () => {
    assert.equal(
      link('/v1/datasets/d/entities/e/records?limit=10&district=north&cursor=old.sig', 'new.sig'),
      '/v1/datasets/d/entities/e/records?district=north&limit=10&cursor=new.sig',
    );
    assert.equal(link('/v1/x', 'c'), '/v1/x?cursor=c');
  });

  it('spells escapes, repeated names and dot segments as the URL parser does', () => {
    assert.equal(link('/v1/a/../b?name=J%C3%B6rg+X&b=1&b=0', 'c'), '/v1/b?b=1&b=0&name=J%C3%B6rg+X&cursor=c');
    assert.equal(link('/v1/x?a=b=c&flag', 'c_-'), '/v1/x?a=b%3Dc&flag=&cursor=c_-');
    assert.equal(link('/v1/x?q=a b', 'c'), '/v1/x?q=a+b&cursor=c');
  });

  it('agrees with the parsed form for any path and query', () => {
    const piece = fc.oneof(
      fc.constantFrom(
        'a',
        'B',
        'cursor',
        'limit',
        '=',
        '&',
        '.',
        '..',
        '/',
        '%',
        '%41',
        '+',
        ' ',
        '~',
        '*',
        '-',
        '_',
        'é',
        '?',
        '#',
      ),
      fc.string({ maxLength: 4 }),
    );
    const text = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''));
    fc.assert(
      fc.property(text, text, fc.oneof(fc.constantFrom('abc.DEF-_', 'x'), text), (path, query, cursor) => {
        const url = `/${path.replace(/[?#]/g, '')}?${query.replace(/#/g, '')}`;
        assert.equal(
          outcome(() => link(url, cursor)),
          outcome(() => parsedNextLink(url, cursor)),
          url,
        );
      }),
      { numRuns: 5000 },
    );
  });
});
