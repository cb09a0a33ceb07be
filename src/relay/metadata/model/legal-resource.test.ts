import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { legalResource, RESOURCE_TYPE_SCHEME } from './legal-resource.ts';

describe('legal resources', () => {
  it('take the declared resource type', () => {
    assert.deepEqual(legalResource('https://example.gov/acts/42', 'LAW'), {
      iri: 'https://example.gov/acts/42',
      type: `${RESOURCE_TYPE_SCHEME}/LAW`,
    });
  });

  it('recognise the type of an EU act from its ELI', () => {
    const typeOf = (iri: string) => legalResource(iri).type?.slice(RESOURCE_TYPE_SCHEME.length + 1);
    assert.equal(typeOf('http://data.europa.eu/eli/reg/2016/679/oj'), 'REG');
    assert.equal(typeOf('https://data.europa.eu/eli/dir/2019/1024/oj'), 'DIR');
    assert.equal(typeOf('http://data.europa.eu/eli/dec/2011/833/oj'), 'DEC');
    assert.equal(typeOf('http://data.europa.eu/eli/reg_impl/2023/138/oj'), 'REG_IMPL');
    assert.equal(typeOf('http://data.europa.eu/eli/dir_del/2020/1/oj'), 'DIR_DEL');
  });

  it('leave the type unknown otherwise, and a declared type wins over the ELI', () => {
    assert.equal(legalResource('https://example.gov/acts/42').type, undefined);
    assert.equal(legalResource('http://data.europa.eu/eli/treaty/teu_2012/oj').type, undefined);
    assert.equal(
      legalResource('http://data.europa.eu/eli/reg/2016/679/oj', 'DIR').type,
      `${RESOURCE_TYPE_SCHEME}/DIR`,
    );
  });
});
