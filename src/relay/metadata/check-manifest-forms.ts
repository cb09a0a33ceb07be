// Manifest forms: the service and channel they belong to, unique field names, and what their fields reference.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { manifestIssue as issue, unknownReference as missing } from './manifest-issue.ts';
import type { Manifest } from './manifest-schema.ts';
import type { ManifestForm } from './manifest-service-schema.ts';

export function checkManifestForms(manifest: Manifest): ConfigIssue[] {
  const services = new Map(manifest.public_services.map((service) => [service.id, service]));
  const requirements = new Set(manifest.requirements.map((requirement) => requirement.id));
  const codelists = new Set(manifest.codelists.map((codelist) => codelist.id));
  return manifest.forms.flatMap((form, f) => {
    const base = `forms.${f}`;
    const issues: ConfigIssue[] = [];
    const service = form.service === undefined ? undefined : services.get(form.service);
    if (form.service !== undefined && !service)
      issues.push(missing(`${base}.service`, 'public service', form.service, services.keys()));
    if (form.channel !== undefined) {
      const channels = service?.channels.map((channel) => channel.id) ?? [];
      if (!channels.includes(form.channel))
        issues.push(missing(`${base}.channel`, 'channel of the form service', form.channel, channels));
    }
    const names = new Set<string>();
    for (const [path, field] of formFields(form, base)) {
      if (names.has(field.name))
        issues.push(issue(`${path}.name`, `duplicate form field name \`${field.name}\``));
      names.add(field.name);
      if (field.supports_requirement !== undefined && !requirements.has(field.supports_requirement))
        issues.push(
          missing(`${path}.supports_requirement`, 'requirement', field.supports_requirement, requirements),
        );
      if (field.codelist !== undefined && !codelists.has(field.codelist))
        issues.push(missing(`${path}.codelist`, 'codelist', field.codelist, codelists));
    }
    issues.push(...submissionPropertyClashes(form, base));
    form.sections.forEach((section, s) => {
      const when = section.visible_when;
      if (when !== undefined && !names.has(when.field))
        issues.push(missing(`${base}.sections.${s}.visible_when.field`, 'form field', when.field, names));
      if (
        section.min_occurs !== undefined &&
        section.max_occurs !== undefined &&
        section.min_occurs > section.max_occurs
      )
        issues.push(issue(`${base}.sections.${s}.min_occurs`, 'must not exceed max_occurs'));
    });
    return issues;
  });
}

/**
 * The submission schema has one property per top-level field (plain sections are flattened into the top level)
 * and per repeatable section: a section id meeting another such name would silently replace it.
 */
function submissionPropertyClashes(form: ManifestForm, base: string): ConfigIssue[] {
  const taken = new Set([
    ...form.fields.map((field) => field.name),
    ...form.sections.filter((section) => !section.repeatable).flatMap((s) => s.fields.map((f) => f.name)),
  ]);
  const issues: ConfigIssue[] = [];
  form.sections.forEach((section, s) => {
    if (!section.repeatable || section.fields.length === 0) return;
    if (taken.has(section.id))
      issues.push(
        issue(
          `${base}.sections.${s}.id`,
          `repeatable section \`${section.id}\` is a property of the submission, which already has a field or section \`${section.id}\`; rename one`,
        ),
      );
    taken.add(section.id);
  });
  return issues;
}

function formFields(form: ManifestForm, base: string): [string, ManifestForm['fields'][number]][] {
  return [
    ...form.fields.map((field, i): [string, typeof field] => [`${base}.fields.${i}`, field]),
    ...form.sections.flatMap((section, s) =>
      section.fields.map((field, i): [string, typeof field] => [`${base}.sections.${s}.fields.${i}`, field]),
    ),
  ];
}
