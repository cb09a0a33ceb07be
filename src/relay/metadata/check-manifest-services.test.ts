// Public services as CPSV-AP and BRegDCAT-AP need them: a competent authority, and that authority's spatial coverage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manifestIssues } from './manifest-test-support.ts';

const manifest = (
  service: string,
  authority: string,
  catalogExtra = '',
) => `schema_version: registry-manifest/v1
catalog:
  id: test
  base_url: https://relay.example.org
  title: Test
  publisher: { name: Test Office }
${catalogExtra}
authorities:
  - { id: office, name: Test Office${authority} }
public_services:
  - { id: certificates, iri: https://example.org/services/certificates, title: Certificates${service} }
datasets:
  - id: people
    title: People
    entities:
      - name: persons
        identifiers: [{ name: person_id, kind: primary }]
        fields:
          - { name: person_id, type: string, required: true }
`;

describe('public services in the manifest', () => {
  it('need a competent authority', () => {
    const issues = manifestIssues(manifest('', ', spatial: https://example.org/places/fr'));
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(
      issues[0] as string,
      /^manifest\.public_services\.0\.competent_authority: .*competent authority/,
    );
  });

  it('need a spatial coverage for their authority, from the authority, the service or the catalog', () => {
    const issues = manifestIssues(manifest(', competent_authority: office', ''));
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(
      issues[0] as string,
      /^manifest\.authorities\.0\.spatial: authority `office` of public service `certificates`/,
    );
    const place = 'https://example.org/places/fr';
    assert.deepEqual(manifestIssues(manifest(', competent_authority: office', `, spatial: ${place}`)), []);
    assert.deepEqual(
      manifestIssues(manifest(`, competent_authority: office, jurisdiction: ${place}`, '')),
      [],
    );
    assert.deepEqual(
      manifestIssues(manifest(', competent_authority: office', '', `  spatial_coverage: ${place}`)),
      [],
    );
  });
});
