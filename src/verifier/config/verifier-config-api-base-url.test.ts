// `evidence.api_base_url` is published in discovery and as the OpenAPI server: only a plain http(s) base loads.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesAt } from './verifier-config-test-support.ts';

const withBase = (url: string): string =>
  BASE.replace('  service_id: test.verifier\n', `  service_id: test.verifier\n  api_base_url: "${url}"\n`);

describe('evidence.api_base_url', () => {
  it('loads an https base with a path', () => {
    const { config } = loadVerifierConfigText(withBase('https://verifier.example.gov/ambit/'), ENV, '/tmp');
    assert.equal(config.evidence.api_base_url, 'https://verifier.example.gov/ambit/');
  });

  it('refuses a scheme clients cannot call', () => {
    for (const url of ['javascript:alert(1)', 'ftp://verifier.example.gov', 'file:///etc/passwd']) {
      const issues = issuesAt(withBase(url), 'evidence.api_base_url');
      assert.equal(issues.length, 1, url);
      assert.match(issues[0]?.message ?? '', /http or https/, url);
    }
  });

  it('refuses credentials, a query or a fragment, which discovery would publish or break, without quoting them', () => {
    for (const url of [
      'https://ops:s3cret-pw@verifier.example.gov',
      'https://verifier.example.gov/?tenant=a',
      'https://verifier.example.gov/#top',
    ]) {
      const issues = issuesAt(withBase(url), 'evidence.api_base_url');
      assert.equal(issues.length, 1, url);
      assert.match(issues[0]?.message ?? '', /query, fragment or credentials/, url);
      assert.doesNotMatch(issues[0]?.message ?? '', /s3cret|tenant|top/);
    }
  });
});
