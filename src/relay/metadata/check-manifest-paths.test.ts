// Ids that would name one published file twice (equal but for case, or a descriptor that is another's folder) are
// refused when the manifest loads, as `ambit metadata publish` refuses them, so validate and the relay agree.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { refusalIssues } from '../../platform/config/refusal-issues.ts';
import { parseManifestText } from './load-manifest.ts';

const dataset = (id: string, offering?: string) => `  - id: ${id}
    title: ${id}
    entities:
      - name: persons
        fields:
          - { name: person_id, type: string, required: true }
${
  offering === undefined
    ? ''
    : `    evidence_offerings:
      - id: ${offering}
        iri: https://example.org/offerings/${offering}
        title: Offering
        evidence_type: record
        issuing_authority: { id: office, name: Office, country: FR }
        level_of_assurance: low
        entity: persons
        lookup_keys: [person_id]
        access:
          kind: verifier
          ruleset: exists
          discovery_url: https://verifier.example.org/.well-known/evidence-service
          conforms_to: https://example.org/contract
`
}`;

const manifest = (datasets: string[], extra = '', catalogExtra = '') => `schema_version: registry-manifest/v1
catalog:
  id: test
  base_url: https://relay.example.org
  title: Test
  publisher: { name: Test Office }
${catalogExtra}
evidence_types:
  - { id: record, iri: https://example.org/record, title: Record }
${extra}
datasets:
${datasets.join('')}`;

function issuesOf(text: string): string[] {
  return refusalIssues(() => parseManifestText(text)).map((issue) => `${issue.path}: ${issue.message}`);
}

describe('ids that become published file names', () => {
  it('refuses dataset ids equal but for case', () => {
    assert.deepEqual(issuesOf(manifest([dataset('people'), dataset('People')])), [
      'manifest.datasets.1.id: dataset id `People` differs from `people` only in case: a published file name on a case-insensitive file system; rename one',
    ]);
  });

  it('refuses a dataset whose id is another dataset’s descriptor file, whatever the case', () => {
    for (const [first, second] of [
      ['people', 'people.json'],
      ['people.json', 'people'],
      ['people', 'People.JSON'],
    ] as const) {
      const issues = issuesOf(manifest([dataset(first), dataset(second)]));
      assert.equal(issues.length, 1, issues.join('\n'));
      assert.match(
        issues[0] as string,
        /^manifest\.datasets\.\d\.id: dataset id `people\.json` is also the published file of dataset `people` \(datasets\/people\.json\), which cannot be a folder too; rename one$/i,
      );
    }
  });

  it('refuses offering, form and profile ids equal but for case, across datasets and profile lists', () => {
    assert.deepEqual(issuesOf(manifest([dataset('people', 'exists'), dataset('places', 'Exists')])), [
      'manifest.datasets.1.evidence_offerings.0.id: evidence offering id `Exists` differs from `exists` only in case: a published file name on a case-insensitive file system; rename one',
    ]);
    const forms = `forms:
  - { id: apply, title: Apply }
  - { id: APPLY, title: Apply again }
profiles:
  - { id: dcat-ap, version: '3.0.1' }`;
    assert.deepEqual(
      issuesOf(
        manifest([dataset('people')], forms, "  application_profiles: [{ id: DCAT-AP, version: '3.0.1' }]"),
      ),
      [
        'manifest.catalog.application_profiles.0.id: profile id `DCAT-AP` differs from `dcat-ap` only in case: a published file name on a case-insensitive file system; rename one',
        'manifest.forms.1.id: form id `APPLY` differs from `apply` only in case: a published file name on a case-insensitive file system; rename one',
      ],
    );
  });

  it('accepts distinct ids, and the same profile id in both profile lists (one file)', () => {
    const loaded = parseManifestText(
      manifest(
        [dataset('people', 'exists'), dataset('people.v2', 'exists-2'), dataset('people_json')],
        "profiles:\n  - { id: dcat-ap, version: '3.0.1' }",
        "  application_profiles: [{ id: dcat-ap, version: '3.0.1' }]",
      ),
    );
    assert.deepEqual(
      loaded.datasets.map((each) => each.id),
      ['people', 'people.v2', 'people_json'],
    );
  });
});
