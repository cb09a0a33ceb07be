import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProblem } from '../../platform/problem/problem.ts';
import { negotiateFormat } from './negotiate-format.ts';

const RESULT = 'application/vnd.ambit.claim-result+json';
const CCCEV = 'application/ld+json; profile="cccev"';

function rejected(accept: string | undefined, format?: string): void {
  assert.throws(
    () => negotiateFormat(accept, format),
    (error: unknown) =>
      isProblem(error) && error.code === 'claim.format_not_supported' && error.status === 406,
  );
}

describe('evaluation format negotiation', () => {
  it('defaults to the claim-result media type without Accept, with */* and application/*', () => {
    for (const accept of [undefined, '', '*/*', 'application/*', 'text/html, */*;q=0.1']) {
      assert.equal(negotiateFormat(accept, undefined), RESULT, String(accept));
    }
  });

  it('reads application/json as the claim-result type, never as CCCEV, and less specifically than either', () => {
    for (const accept of [
      'application/json',
      'application/json; charset=utf-8',
      `application/json, ${CCCEV}`,
      `application/*;q=0, application/json`,
      `${CCCEV};q=0.5, application/json`,
    ]) {
      assert.equal(negotiateFormat(accept, undefined), RESULT, accept);
    }
    assert.equal(negotiateFormat(`${CCCEV}, application/json`, undefined), CCCEV);
    assert.equal(negotiateFormat(undefined, 'application/json'), RESULT);
    assert.equal(negotiateFormat('application/json', RESULT), RESULT);
    // The vendor type itself decides over the plain JSON range; a charset other than UTF-8 is not met.
    rejected(`application/json, ${RESULT};q=0`);
    rejected('application/json; charset=iso-8859-1');
    rejected('application/json', CCCEV);
  });

  it('selects CCCEV JSON-LD with the profile quoted or unquoted, in any case and spacing', () => {
    for (const accept of [
      CCCEV,
      'application/ld+json;profile=cccev',
      'APPLICATION/LD+JSON ; Profile="CCCEV"',
      `${RESULT};q=0.5, application/ld+json; profile=cccev`,
    ]) {
      assert.equal(negotiateFormat(accept, undefined), CCCEV, accept);
    }
  });

  it('reads charset=utf-8 as met (the answers are UTF-8), any other charset as not', () => {
    assert.equal(negotiateFormat(`${RESULT}; charset=utf-8`, undefined), RESULT);
    assert.equal(negotiateFormat(`${RESULT};charset="UTF-8"`, undefined), RESULT);
    assert.equal(negotiateFormat(`${CCCEV}; charset=utf-8`, undefined), CCCEV);
    assert.equal(negotiateFormat(`${CCCEV}; charset=utf-8, ${RESULT}; q=0.5`, undefined), CCCEV);
    rejected(`${RESULT}; charset=iso-8859-1`);
    rejected(`${RESULT}; charset=utf-8; q=0`);
  });

  it('answers 406 for anything else, including q=0 and JSON-LD without the profile', () => {
    for (const accept of [
      'text/html',
      'application/ld+json',
      'application/ld+json; profile="other"',
      `${RESULT};q=0`,
      '*/*;q=0',
      'garbage',
    ]) {
      rejected(accept);
    }
  });

  it('weighs each format by the most specific range covering it, wherever that range stands', () => {
    assert.equal(negotiateFormat(`*/*, ${RESULT};q=0`, undefined), CCCEV);
    assert.equal(negotiateFormat(`${RESULT};q=0, */*`, undefined), CCCEV);
    assert.equal(negotiateFormat(`*/*;q=0, ${CCCEV}`, undefined), CCCEV);
    assert.equal(negotiateFormat(`application/*;q=0.1, ${CCCEV}`, undefined), CCCEV);
    assert.equal(negotiateFormat(`application/*;q=0.1, ${CCCEV};q=0.05`, undefined), RESULT);
    rejected(`*/*, ${RESULT};q=0, ${CCCEV};q=0`);
  });

  it('breaks a tie in q by the order of the Accept header, as the verifier contract does', () => {
    // The first entry of the q-sorted Accept list that names a format wins (contract §2.5, step 2).
    assert.equal(negotiateFormat(`${CCCEV}, ${RESULT}`, undefined), CCCEV);
    assert.equal(negotiateFormat(`${CCCEV};q=0.5, ${RESULT};q=0.5`, undefined), CCCEV);
    assert.equal(negotiateFormat(`${RESULT}, ${CCCEV}`, undefined), RESULT);
    assert.equal(negotiateFormat(`${CCCEV};q=0.4, ${RESULT};q=0.5`, undefined), RESULT);
    // One range covering both: the verifier's own order.
    assert.equal(negotiateFormat('application/*', undefined), RESULT);
    assert.equal(negotiateFormat(`*/*, ${CCCEV}`, undefined), RESULT);
  });

  it('takes the body format when Accept permits it', () => {
    assert.equal(negotiateFormat(undefined, CCCEV), CCCEV);
    assert.equal(negotiateFormat('*/*', 'application/ld+json;profile=cccev'), CCCEV);
    assert.equal(negotiateFormat(`${RESULT}, ${CCCEV}`, RESULT), RESULT);
    rejected(RESULT, CCCEV);
    rejected(undefined, 'application/dc+sd-jwt');
    rejected(undefined, '*/*');
  });

  it('reads a body format as it reads the same value in Accept: charset=utf-8 met, the profile by meaning', () => {
    for (const format of [`${RESULT}; charset=utf-8`, `${RESULT};charset="UTF-8"`]) {
      assert.equal(negotiateFormat(undefined, format), RESULT, format);
      assert.equal(negotiateFormat(format, format), RESULT, format);
    }
    for (const format of [
      `${CCCEV}; charset=utf-8`,
      'application/ld+json; charset=UTF-8; profile=cccev',
      'APPLICATION/LD+JSON;profile="CCCEV";charset="utf-8"',
    ]) {
      assert.equal(negotiateFormat(undefined, format), CCCEV, format);
      assert.equal(negotiateFormat(`${CCCEV}; charset=utf-8`, format), CCCEV, format);
    }
    rejected(undefined, `${RESULT}; charset=iso-8859-1`);
    rejected(undefined, 'application/ld+json; charset=utf-8');
    rejected(undefined, 'application/ld+json; charset=utf-8; profile="other"');
    rejected(RESULT, `${CCCEV}; charset=utf-8`);
  });
});
