// A form's submission schema names each top-level field and each repeatable section as one property: a manifest
// whose names would meet there is refused, and an accepted form gives a well-formed Draft 2020-12 schema.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseManifestText } from './load-manifest.ts';
import { manifestIssues } from './manifest-test-support.ts';
import { buildModelFromManifest } from './model/build-model-from-manifest.ts';
import { staticMetadataLinks } from './model/metadata-links.ts';
import { renderFormJsonSchema } from './renderers/render-form-json-schema.ts';

const manifest = (fields: string, sections: string) => `schema_version: registry-manifest/v1
catalog:
  id: test
  base_url: https://relay.example.org
  title: Test
  publisher: { name: Test Office }
forms:
  - id: apply
    title: Apply
    fields:
${fields}
    sections:
${sections}
`;

const field = (id: string, name: string) =>
  `      - { id: ${id}, name: ${name}, label: ${name}, data_type: xsd:string, required: true }`;
const section = (id: string, repeatable: boolean, fieldName: string) =>
  `      - id: ${id}
        repeatable: ${repeatable}
        min_occurs: 1
        fields:
          - { id: ${id}_${fieldName}, name: ${fieldName}, label: ${fieldName}, data_type: xsd:string }`;

describe('form submission property names', () => {
  it('refuses a repeatable section named like a field of the submission', () => {
    const issues = manifestIssues(manifest(field('count', 'members'), section('members', true, 'role')));
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0] as string, /^manifest\.forms\.0\.sections\.0\.id: .*`members`/);
  });

  it('refuses two repeatable sections with one id', () => {
    const sections = `${section('members', true, 'role')}\n${section('members', true, 'age')}`;
    const issues = manifestIssues(manifest(field('name', 'name'), sections));
    assert.equal(issues.length, 1, issues.join('\n'));
    assert.match(issues[0] as string, /^manifest\.forms\.0\.sections\.1\.id: .*`members`/);
  });

  it('accepts a plain section named like a field (its fields are flattened, its id names nothing)', () => {
    const text = manifest(field('count', 'members'), section('members', false, 'role'));
    assert.deepEqual(manifestIssues(text), []);
    const model = buildModelFromManifest(parseManifestText(text));
    const form = model.forms[0];
    assert.ok(form);
    const schema = renderFormJsonSchema(model, form, staticMetadataLinks('https://static.example.org'));
    const ajv = new Ajv2020({ strict: false });
    assert.ok(ajv.validateSchema(schema), JSON.stringify(ajv.errors));
    assert.deepEqual(Object.keys(schema.properties), ['members', 'role']);
  });
});
