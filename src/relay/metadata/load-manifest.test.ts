// Manifest loading: digest pins, YAML and version errors, shape errors, and every cross-reference rule at once.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { refusalIssues } from '../../platform/config/refusal-issues.ts';
import { digestOf, loadManifestFile, parseManifestText } from './load-manifest.ts';

const DEMO_MANIFEST = fileURLToPath(new URL('../../../demo/relay.metadata.yaml', import.meta.url));

const BASE = `schema_version: registry-manifest/v1
catalog:
  id: test
  base_url: https://relay.example.org
  title: Test
  publisher: { name: Test Office }
vocabularies:
  ex: https://vocab.example.org/
evidence_types:
  - { id: person-record, iri: ex:person-record, title: Person record, proves: [identity] }
requirements:
  - { id: identity, iri: ex:identity, title: Identity }
codelists:
  - { id: sex, scheme_iri: ex:sex, concepts: [{ code: female }, { code: male }] }
datasets:
  - id: people
    title: People
    entities:
      - name: persons
        identifiers: [{ name: person_id, kind: primary }]
        fields:
          - { name: person_id, type: string, required: true }
          - { name: sex, type: code, codelist: sex }
    evidence_offerings:
      - id: person-exists
        iri: ex:offerings/person-exists
        title: Person exists
        evidence_type: person-record
        issuing_authority: { id: office, name: Test Office, country: FR }
        level_of_assurance: low
        entity: persons
        lookup_keys: [person_id]
        access:
          kind: verifier
          ruleset: person-exists
          discovery_url: https://verifier.example.org/.well-known/evidence-service
          conforms_to: ex:contract
`;

function issuesOf(load: () => unknown): { path: string; code: string; message: string }[] {
  return [...refusalIssues(load)];
}

const codesAt = (issues: { path: string; code: string }[]) =>
  issues.map((i) => `${i.code} @ ${i.path}`).sort();

describe('loadManifestFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-manifest-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'metadata.yaml');
  writeFileSync(file, BASE);

  it('loads the demo manifest and reports the digest of its bytes', () => {
    const loaded = loadManifestFile(DEMO_MANIFEST);
    assert.equal(loaded.manifest.schema_version, 'registry-manifest/v1');
    assert.deepEqual(
      loaded.manifest.datasets.map((dataset) => dataset.id),
      ['civil_registry', 'social_protection', 'health_facilities'],
    );
    assert.equal(loaded.digest, digestOf(Buffer.from(loaded.text)));
    assert.ok(Object.isFrozen(loaded.manifest.datasets[0]));
  });

  it('accepts a matching digest pin and rejects a different or malformed one', () => {
    const digest = digestOf(Buffer.from(BASE));
    assert.equal(loadManifestFile(file, { expectedDigest: digest }).digest, digest);
    const mismatch = issuesOf(() =>
      loadManifestFile(file, {
        expectedDigest: `sha256:${'0'.repeat(64)}`,
        sourcePath: 'metadata.source.path',
      }),
    );
    assert.deepEqual(codesAt(mismatch), ['metadata.manifest.digest_mismatch @ metadata.source.digest']);
    assert.match(mismatch[0]?.message ?? '', new RegExp(digest));
    const malformed = issuesOf(() => loadManifestFile(file, { expectedDigest: digest.toUpperCase() }));
    assert.deepEqual(codesAt(malformed), ['metadata.manifest.digest_invalid @ digest']);
  });

  it('names a missing file with the config key that pointed at it', () => {
    const issues = issuesOf(() =>
      loadManifestFile(join(dir, 'nope.yaml'), { sourcePath: 'metadata.source.path' }),
    );
    assert.deepEqual(codesAt(issues), ['metadata.manifest.file_not_found @ metadata.source.path']);
  });

  it('refuses bytes that are not UTF-8, naming their line, rather than publishing U+FFFD', () => {
    const latin1 = join(dir, 'latin1.yaml');
    writeFileSync(
      latin1,
      Buffer.concat([Buffer.from(BASE), Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\n')]),
    );
    const issues = issuesOf(() => loadManifestFile(latin1));
    const line = BASE.split('\n').length;
    assert.deepEqual(codesAt(issues), [`metadata.manifest.parse_failed @ manifest line ${line}`]);
    assert.match(issues[0]?.message ?? '', /not UTF-8/);
  });
});

describe('parseManifestText', () => {
  it('reports YAML syntax errors and duplicate keys with their line', () => {
    const syntax = issuesOf(() => parseManifestText(`${BASE}\n  - : [\n`));
    assert.ok(syntax.length >= 1);
    assert.ok(syntax.every((issue) => issue.code === 'metadata.manifest.parse_failed'));
    assert.match(syntax[0]?.path ?? '', /^manifest line \d+$/);
    const duplicate = issuesOf(() =>
      parseManifestText(BASE.replace('  id: test\n', '  id: test\n  id: again\n')),
    );
    assert.equal(duplicate[0]?.code, 'metadata.manifest.parse_failed');
  });

  it('reads YAML 1.2 only, as configs are: a %YAML 1.1 directive, a tag, keys equal as object keys are refused', () => {
    // Under YAML 1.1 a language code `no` (Norwegian) would read as false.
    const old = issuesOf(() => parseManifestText(`%YAML 1.1\n---\n${BASE}`));
    assert.deepEqual(codesAt(old), ['metadata.manifest.parse_failed @ manifest line 1']);
    const tagged = issuesOf(() =>
      parseManifestText(BASE.replace('  id: test\n', '  id: !!binary dGVzdA==\n')),
    );
    assert.equal(tagged[0]?.code, 'metadata.manifest.parse_failed');
    assert.match(tagged[0]?.path ?? '', /^manifest line \d+$/);
    const twice = issuesOf(() => parseManifestText(`${BASE}x:\n  1: a\n  "1": b\n`));
    const second = `${BASE}x:\n  1: a\n`.split('\n').length;
    assert.deepEqual(codesAt(twice), [`metadata.manifest.parse_failed @ manifest line ${second}`]);
  });

  it('reports a broken alias and an alias bomb as parse issues, not a crash', () => {
    const unresolved = issuesOf(() =>
      parseManifestText('schema_version: registry-manifest/v1\ncatalog: *nope\n'),
    );
    assert.deepEqual(codesAt(unresolved), ['metadata.manifest.parse_failed @ manifest line 2']);
    assert.doesNotMatch(unresolved[0]?.message ?? '', /nope/);
    // Nested lists of aliases, ten times larger at each level.
    const bomb = [
      'schema_version: registry-manifest/v1',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'catalog: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
    ].join('\n');
    assert.deepEqual(codesAt(issuesOf(() => parseManifestText(bomb))), [
      'metadata.manifest.parse_failed @ manifest',
    ]);
  });

  it('rejects another schema version before looking at anything else', () => {
    const issues = issuesOf(() =>
      parseManifestText(
        BASE.replace('registry-manifest/v1', 'registry-manifest/v0').replace('id: test', 'id: 7'),
      ),
    );
    assert.deepEqual(codesAt(issues), ['metadata.manifest.version_unsupported @ manifest.schema_version']);
    assert.deepEqual(codesAt(issuesOf(() => parseManifestText('catalog: {}\n'))), [
      'metadata.manifest.version_unsupported @ manifest.schema_version',
    ]);
    assert.deepEqual(codesAt(issuesOf(() => parseManifestText('- a\n'))), [
      'metadata.manifest.validation_failed @ manifest',
    ]);
  });

  it('lists every shape error with its manifest path, unknown keys with a hint', () => {
    const text = BASE.replace('  title: Test\n', '  titel: Test\n')
      .replace('country: FR', 'country: France')
      .replace('        level_of_assurance: low\n', '')
      .replace('type: code,', 'type: enum,');
    const issues = issuesOf(() => parseManifestText(text));
    assert.ok(issues.every((issue) => issue.code === 'metadata.manifest.validation_failed'));
    const paths = issues.map((issue) => issue.path);
    for (const path of [
      'manifest.catalog.titel',
      'manifest.catalog.title',
      'manifest.datasets.0.evidence_offerings.0.issuing_authority.country',
      'manifest.datasets.0.evidence_offerings.0.level_of_assurance',
      'manifest.datasets.0.entities.0.fields.1.type',
    ]) {
      assert.ok(paths.includes(path), `no issue at ${path}: ${JSON.stringify(issues)}`);
    }
    assert.match(
      issues.find((i) => i.path === 'manifest.catalog.titel')?.message ?? '',
      /did you mean `title`/,
    );
  });

  it('refuses ids that would not be safe path segments', () => {
    const issues = issuesOf(() => parseManifestText(BASE.replace('id: person-exists', 'id: ../../etc')));
    assert.deepEqual(codesAt(issues), [
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.id',
    ]);
  });

  it('checks every cross reference and reports them all at once', () => {
    const text = BASE.replace('evidence_type: person-record', 'evidence_type: person-recrod')
      .replace('lookup_keys: [person_id]', 'lookup_keys: [person_id, national_id]')
      .replace('proves: [identity]', 'proves: [identity, residence]')
      .replace('codelist: sex', 'codelist: gender')
      .replace('iri: ex:offerings/person-exists', 'iri: nope:offerings/person-exists')
      .replace('identifiers: [{ name: person_id', 'identifiers: [{ name: id');
    const issues = issuesOf(() => parseManifestText(text));
    assert.deepEqual(codesAt(issues), [
      'metadata.manifest.validation_failed @ manifest.datasets.0.entities.0.fields.1.codelist',
      'metadata.manifest.validation_failed @ manifest.datasets.0.entities.0.identifiers.0.name',
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.evidence_type',
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.iri',
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.lookup_keys.1',
      'metadata.manifest.validation_failed @ manifest.evidence_types.0.proves.1',
    ]);
    const typo = issues.find((issue) => issue.path.endsWith('.evidence_type'));
    assert.match(typo?.message ?? '', /did you mean `person-record`/);
    assert.match(
      issues.find((issue) => issue.path.endsWith('.iri'))?.message ?? '',
      /unknown vocabulary prefix `nope`/,
    );
  });

  it('accepts only verifier offerings that say where the verifier is', () => {
    const notary = issuesOf(() => parseManifestText(BASE.replace('kind: verifier', 'kind: registry-notary')));
    assert.deepEqual(codesAt(notary), [
      'runtime.binding.unsupported_evidence_offering @ manifest.datasets.0.evidence_offerings.0.access.kind',
    ]);
    const nowhere = issuesOf(() =>
      parseManifestText(
        BASE.replace(
          '          discovery_url: https://verifier.example.org/.well-known/evidence-service\n',
          '',
        ),
      ),
    );
    assert.deepEqual(codesAt(nowhere), [
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.access',
    ]);
    const ftp = issuesOf(() =>
      parseManifestText(BASE.replace('discovery_url: https:', 'discovery_url: ftp:')),
    );
    assert.deepEqual(codesAt(ftp), [
      'metadata.manifest.validation_failed @ manifest.datasets.0.evidence_offerings.0.access.discovery_url',
    ]);
  });

  it('rejects duplicate offering ids across datasets and ODRL purposes given as literals', () => {
    const second = `  - id: more
    title: More
    entities: [{ name: persons, fields: [{ name: person_id, type: string }] }]
    policy:
      assigner: ex:office
      permissions:
        - action: use
          constraints: [{ left_operand: purpose, operator: eq, right_operand: { value: research } }]
    evidence_offerings:
      - id: person-exists
        iri: ex:offerings/again
        title: Again
        evidence_type: person-record
        issuing_authority: { id: office, name: Test Office, country: FR }
        level_of_assurance: low
        entity: persons
        lookup_keys: [person_id]
        access: { kind: verifier, ruleset: r, endpoint_url: https://v.example.org/e, conforms_to: ex:contract }
`;
    const issues = issuesOf(() => parseManifestText(`${BASE}${second}`));
    assert.deepEqual(codesAt(issues), [
      'metadata.manifest.validation_failed @ manifest.datasets.1.evidence_offerings.0',
      'metadata.manifest.validation_failed @ manifest.datasets.1.policy.permissions.0.constraints.0.right_operand',
    ]);
  });

  it('refuses impossible dates, non-BCP 47 languages and IRIs or URLs holding spaces', () => {
    const edited = BASE.replace(
      '  publisher: { name: Test Office }\n',
      '  publisher: { name: Test Office }\n  languages: [en_US]\n  issued: "2025-02-30"\n  modified: "2025-06-30T24:00:00Z"\n',
    )
      .replace('base_url: https://relay.example.org', 'base_url: https://relay.example.org/my registry')
      .replace('title: People\n', 'title: People\n    iri: "https://example.org/people set"\n');
    const shape = issuesOf(() => parseManifestText(edited));
    assert.deepEqual(shape.map((issue) => issue.path).sort(), [
      'manifest.catalog.base_url',
      'manifest.catalog.issued',
      'manifest.catalog.languages.0',
      'manifest.catalog.modified',
    ]);
    const iri = issuesOf(() =>
      parseManifestText(
        BASE.replace('title: People\n', 'title: People\n    iri: "https://example.org/people set"\n'),
      ),
    );
    assert.deepEqual(codesAt(iri), ['metadata.manifest.validation_failed @ manifest.datasets.0.iri']);
    // Real days and offsets pass, leap days included.
    const fine = parseManifestText(
      BASE.replace(
        '  publisher: { name: Test Office }\n',
        '  publisher: { name: Test Office }\n  languages: [pt-BR]\n  issued: "2024-02-29"\n  modified: "2025-06-30T23:59:59.5+05:30"\n',
      ),
    );
    assert.equal(fine.catalog.modified, '2025-06-30T23:59:59.5+05:30');
  });

  it('refuses two nodes sharing an IRI, and an Offer whose assigner has none', () => {
    const second = `  - id: more
    iri: ex:people
    title: More
    policy: { permissions: [{ action: use }] }
  - id: again
    iri: ex:people
    title: Again
`;
    const issues = issuesOf(() =>
      parseManifestText(
        `${BASE.replace('    title: People\n', '    iri: ex:people\n    title: People\n')}${second}`,
      ),
    );
    assert.deepEqual(codesAt(issues), [
      'metadata.manifest.validation_failed @ manifest.datasets.1.iri',
      'metadata.manifest.validation_failed @ manifest.datasets.1.policy.assigner',
      'metadata.manifest.validation_failed @ manifest.datasets.2.iri',
    ]);
    // A publisher with an IRI assigns the Offer.
    parseManifestText(
      `${BASE.replace('{ name: Test Office }', '{ name: Test Office, iri: ex:office }')}  - id: more\n    title: More\n    policy: { permissions: [{ action: use }] }\n`,
    );
  });

  it('accepts DID issuers and compact IRIs over declared prefixes', () => {
    const manifest = parseManifestText(
      BASE.replace(
        '{ id: office, name: Test Office, country: FR }',
        '{ id: office, iri: did:web:office.example.org, name: Test Office, country: FR }',
      ),
    );
    assert.equal(
      manifest.datasets[0]?.evidence_offerings[0]?.issuing_authority.iri,
      'did:web:office.example.org',
    );
  });

  it('takes legislation as an IRI or with a resource-type code, and names a bad code or IRI', () => {
    const withLegislation = (entries: string) =>
      BASE.replace('    title: People\n', `    title: People\n    applicable_legislation: ${entries}\n`);
    const manifest = parseManifestText(
      withLegislation('[ex:acts/1, { iri: "https://example.gov/acts/2", type: LAW }]'),
    );
    assert.deepEqual(manifest.datasets[0]?.applicable_legislation, [
      'ex:acts/1',
      { iri: 'https://example.gov/acts/2', type: 'LAW' },
    ]);
    const badCode = issuesOf(() =>
      parseManifestText(withLegislation('[{ iri: "https://example.gov/acts/2", type: law }]')),
    );
    assert.deepEqual(
      badCode.map((issue) => issue.path),
      ['manifest.datasets.0.applicable_legislation.0.type'],
    );
    const badIri = issuesOf(() =>
      parseManifestText(withLegislation('[ex:acts/1, { iri: "nope:x", type: LAW }]')),
    );
    assert.ok(
      badIri.some((issue) => issue.path.endsWith('datasets.0.applicable_legislation.1')),
      JSON.stringify(badIri),
    );
  });
});
