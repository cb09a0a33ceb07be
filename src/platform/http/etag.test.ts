import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNotModified, strongEtag, weakEtag } from './etag.ts';
import type { RouteRequest } from './route-types.ts';

const asking = (ifNoneMatch: string | undefined) =>
  ({ headers: ifNoneMatch === undefined ? {} : { 'if-none-match': ifNoneMatch } }) as unknown as RouteRequest;

describe('isNotModified', () => {
  const strong = strongEtag(['x']);
  const weak = weakEtag(['x']);

  it('compares weakly (RFC 9110 §13.1.2): W/ on either side is ignored', () => {
    for (const etag of [strong, weak]) {
      for (const sent of [strong, weak, `"other", ${strong}`, ` ${weak} ,"y"`, '*']) {
        assert.equal(isNotModified(asking(sent), etag), true, `${sent} against ${etag}`);
      }
    }
  });

  it('matches no other tag, and nothing without the header', () => {
    for (const etag of [strong, weak]) {
      for (const sent of [strongEtag(['y']), weakEtag(['y']), strong.slice(1, -1), '', 'W/']) {
        assert.equal(isNotModified(asking(sent), etag), false, `${sent} against ${etag}`);
      }
      assert.equal(isNotModified(asking(undefined), etag), false);
    }
  });

  it('takes `*` only as the whole field: in a list it names no tag (RFC 9110 §13.1.2)', () => {
    for (const sent of ['"other", *', '*, "other"', '*,*', 'W/*']) {
      assert.equal(isNotModified(asking(sent), strong), false, sent);
    }
    assert.equal(isNotModified(asking(' * '), strong), true);
  });
});
