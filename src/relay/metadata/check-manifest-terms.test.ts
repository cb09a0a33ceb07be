// Manifest values that the RDF documents write as IRIs without declaring them as such (a licence given as a URL,
// ODRL actions, operands, operators and datatypes) must be IRIs too: JSON-LD drops an `@id` holding a space.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../platform/config/config-error.ts';
import { parseManifestText } from './load-manifest.ts';

const manifest = (datasetExtra: string) => `schema_version: registry-manifest/v1
catalog:
  id: test
  base_url: https://relay.example.org
  title: Test
  publisher: { name: Test Office, iri: https://example.org/office }
datasets:
  - id: people
    title: People
${datasetExtra}`;

function pathsOf(text: string): string[] {
  try {
    parseManifestText(text);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => issue.path);
    throw error;
  }
  assert.fail('expected the manifest to be rejected');
}

describe('licences and ODRL terms written as IRIs', () => {
  it('refuses a licence URL holding a space, a quote or <>', () => {
    for (const licence of [
      'https://example.org/lic ence',
      'https://example.org/"cc"',
      'urn:lic:<x>',
      'HTTP://example.org/a|b',
    ]) {
      assert.deepEqual(
        pathsOf(manifest(`    license: ${JSON.stringify(licence)}\n`)),
        ['manifest.datasets.0.license'],
        licence,
      );
    }
  });

  it('accepts a licence URL, and a licence named in words (spaces and all)', () => {
    for (const licence of ['https://creativecommons.org/licenses/by/4.0/', 'CC BY 4.0 "international"']) {
      const loaded = parseManifestText(manifest(`    license: ${JSON.stringify(licence)}\n`));
      assert.equal(loaded.datasets[0]?.license, licence);
    }
  });

  it('refuses ODRL actions, operands, operators and datatypes that are no IRI or term', () => {
    const policy = `    policy:
      permissions:
        - action: "use it"
          constraints:
            - { left_operand: "date time", operator: "lt<", right_operand: { value: "2030-01-01" }, datatype: "da te" }
          duties:
            - { action: "attri bute" }
      prohibitions:
        - { action: "https://example.org/no\\tsell" }
`;
    assert.deepEqual(pathsOf(manifest(policy)).sort(), [
      'manifest.datasets.0.policy.permissions.0.action',
      'manifest.datasets.0.policy.permissions.0.constraints.0.datatype',
      'manifest.datasets.0.policy.permissions.0.constraints.0.left_operand',
      'manifest.datasets.0.policy.permissions.0.constraints.0.operator',
      'manifest.datasets.0.policy.permissions.0.duties.0.action',
      'manifest.datasets.0.policy.prohibitions.0.action',
    ]);
  });
});
