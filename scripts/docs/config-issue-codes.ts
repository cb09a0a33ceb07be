// The codes a config issue can carry (`ConfigIssue.code`), with when each occurs, for docs/configuration.md.
export const CONFIG_ISSUE_CODES = {
  'config.file_unreadable': 'The config file does not exist or cannot be read.',
  'config.env_file_unreadable': 'The `--env-file` does not exist or cannot be read.',
  'config.missing_env':
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text documents the config's own ${VAR} syntax.
    'A `${VAR}` or `${VAR:?message}` reference names an unset variable (the path is the line).',
  'config.parse_error':
    'YAML syntax error (the path is the line), an unknown key (with the closest known key as a hint) or a removed key (with how to migrate).',
  'config.validation_error':
    'A value has the wrong type or format, or breaks a rule that spans several keys.',
  'config.duplicate_id': 'Two datasets, tables, entities, fields, relationships or API keys share an id.',
  'config.missing_secret':
    'An environment variable the config names for a secret or key fingerprint is not set.',
} as const satisfies Record<string, string>;
