// A public field's name is also a query parameter (`?district=a`, `district.in=a,b`), a member of `fields=a,b` and
// a JSON member of every row: a name that cannot be all three would make the field impossible to filter or
// project, or would be taken for something else.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import type { EntityConfig, TableConfig } from './schema.ts';
import { ID_MAX, ID_PATTERN, RESERVED_QUERY_PARAMETERS } from './schema-parts.ts';

export function checkPublicFieldNames(entity: EntityConfig, table: TableConfig, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const issue = (path: string, message: string): ConfigIssue => ({
    path,
    message,
    code: 'config.validation_error',
  });
  if (entity.fields === undefined) {
    // Every column becomes a field under its own name: one the rules refuse needs `fields` to rename it.
    for (const field of table.schema.fields) {
      if (!ID_PATTERN.test(field.name)) {
        issues.push(
          issue(
            `${base}.fields`,
            `column \`${field.name}\` would be a public field, whose name must match ${ID_PATTERN.source}: list the entity's \`fields\` and rename it (\`{ name: ..., from: "${field.name}" }\`)`,
          ),
        );
      } else if (field.name.length > ID_MAX) {
        issues.push(
          issue(
            `${base}.fields`,
            `column \`${field.name.slice(0, 32)}...\` would be a public field, whose name must be at most ${ID_MAX} characters: list the entity's \`fields\` and rename it (\`{ name: ..., from: <column> }\`)`,
          ),
        );
      } else if (RESERVED_QUERY_PARAMETERS.has(field.name)) {
        issues.push(issue(`${base}.fields`, reservedMessage(field.name, true)));
      }
    }
    return issues;
  }
  entity.fields.forEach((field, f) => {
    if (RESERVED_QUERY_PARAMETERS.has(field.name))
      issues.push(issue(`${base}.fields.${f}.name`, reservedMessage(field.name, false)));
  });
  return issues;
}

function reservedMessage(name: string, implicit: boolean): string {
  const rename = implicit ? ` (list the entity's \`fields\` with \`{ name: ..., from: ${name} }\`)` : '';
  return `\`${name}\` is a query parameter of the records route, so a field of that name could never be filtered: rename it${rename}`;
}
