// The codes a config issue can carry (`ConfigIssue.code`), with when each occurs, for docs/configuration.md.
import { AUDIT_ISSUE_CODES } from '../../src/platform/audit/audit-issue-codes.ts';

export const CONFIG_ISSUE_CODES = {
  'config.file_unreadable':
    'The config file does not exist, cannot be read, is not a regular file (a directory, device or pipe) or is larger than 4 MiB.',
  'config.env_file_unreadable':
    'The `--env-file` does not exist, cannot be read, is not a regular file, is larger than 1 MiB, is not UTF-8, or has a line that is not `KEY=VALUE` (the message gives the line, never its text).',
  'config.missing_env':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text documents the config's own ${VAR} syntax.
    'A `${VAR}` or `${VAR:?message}` reference names an unset variable (the path is the line).',
  'config.parse_error':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text documents the config's own ${VAR} syntax.
    'YAML syntax error, a file that is not UTF-8, a `${VAR}` value that would change the YAML structure or a `${VAR}` in a key, a `%YAML 1.1` directive or a tag outside YAML 1.2 core, a string or key holding a lone UTF-16 surrogate (a `\\uD800` escape with no pair) (the path is the line), an unknown key (with the closest known key as a hint), a YAML merge key (`<<`) or a `__proto__` key, or a removed key (with how to migrate).',
  'config.validation_error':
    'A value has the wrong type or format, or breaks a rule that spans several keys.',
  'config.duplicate_id': 'Two datasets, tables, entities, fields, relationships or API keys share an id.',
  'config.missing_secret':
    'An environment variable the config names for a secret or key fingerprint is not set.',
  'metadata.manifest.file_not_found':
    'The metadata manifest named by `metadata.source.path` does not exist, cannot be read, is not a regular file or is larger than 4 MiB.',
  'metadata.manifest.parse_failed':
    'The metadata manifest is not valid YAML (the path is the manifest line).',
  'metadata.manifest.version_unsupported': 'The manifest `schema_version` is not `registry-manifest/v1`.',
  'metadata.manifest.validation_failed':
    'A manifest value has the wrong shape, an unknown key, a duplicate id, an unknown vocabulary prefix or a reference to something the manifest does not declare (paths start with `manifest.`).',
  'metadata.manifest.digest_invalid': '`metadata.source.digest` is not `sha256:<64 lowercase hex>`.',
  'metadata.manifest.digest_mismatch':
    'The manifest file does not have the digest pinned in `metadata.source.digest`.',
  'runtime.binding.dataset_missing': 'A manifest dataset is not a dataset of the relay config.',
  'runtime.binding.entity_missing': 'A manifest entity is not an entity of that dataset in the relay config.',
  'runtime.binding.field_missing': 'A manifest field is not a public field of the relay entity.',
  'runtime.binding.field_type_mismatch':
    'A manifest field type differs from the relay field type (`code` binds to `string`), or the manifest declares non-nullable a field the relay serves as nullable.',
  'runtime.binding.field_undescribed':
    'A manifest entity does not describe every public field of the relay entity (its JSON Schema would refuse the records).',
  'runtime.binding.relationship_missing':
    'A manifest relationship is not a relationship of the relay entity with the same target.',
  'runtime.binding.filter_missing':
    'An evidence offering lookup key is not an allowed `eq` filter of the relay entity.',
  'runtime.binding.unsupported_evidence_offering':
    'An evidence offering `access.kind` is not `verifier`: the relay only describes offerings verified elsewhere.',
  // Raised where the audit sink is opened (src/platform/audit), after the config has loaded.
  ...AUDIT_ISSUE_CODES,
} as const satisfies Record<string, string>;
