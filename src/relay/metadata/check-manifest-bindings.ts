// Manifest vs runtime config: every dataset, entity, field, relationship and lookup key the manifest describes
// must be served by this relay, and a described entity must describe every field it serves (its JSON Schema must
// accept the records), or startup fails listing each mismatch.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import type { Catalog, CatalogEntity } from '../catalog/catalog.ts';
import { MANIFEST_PATH_PREFIX } from './load-manifest.ts';
import type { Manifest, ManifestEntity } from './manifest-schema.ts';

const issue = (path: string, code: string, message: string): ConfigIssue => ({
  path: `${MANIFEST_PATH_PREFIX}.${path}`,
  code,
  message,
});

export function checkManifestBindings(manifest: Manifest, catalog: Catalog): ConfigIssue[] {
  return manifest.datasets.flatMap((dataset, d) => {
    const runtime = catalog.datasets.get(dataset.id);
    if (!runtime) {
      return [
        issue(
          `datasets.${d}.id`,
          'runtime.binding.dataset_missing',
          `the relay config has no dataset \`${dataset.id}\`${hint(dataset.id, catalog.datasets.keys())}`,
        ),
      ];
    }
    const issues: ConfigIssue[] = [];
    dataset.entities.forEach((entity, e) => {
      const bound = runtime.entities.get(entity.name);
      if (!bound) {
        issues.push(
          issue(
            `datasets.${d}.entities.${e}.name`,
            'runtime.binding.entity_missing',
            `dataset \`${dataset.id}\` has no entity \`${entity.name}\` in the relay config${hint(entity.name, runtime.entities.keys())}`,
          ),
        );
        return;
      }
      issues.push(...checkEntity(entity, bound, `datasets.${d}.entities.${e}`));
    });
    dataset.evidence_offerings.forEach((offering, o) => {
      const bound = runtime.entities.get(offering.entity);
      if (!bound) return; // reported on the manifest entity (or as a manifest reference error)
      offering.lookup_keys.forEach((key, k) => {
        if (!bound.api.allowedFilters.get(key)?.has('eq')) {
          issues.push(
            issue(
              `datasets.${d}.evidence_offerings.${o}.lookup_keys.${k}`,
              'runtime.binding.filter_missing',
              `lookup key \`${key}\` must be an allowed eq filter of ${dataset.id}.${offering.entity} in the relay config`,
            ),
          );
        }
      });
    });
    return issues;
  });
}

function checkEntity(entity: ManifestEntity, bound: CatalogEntity, base: string): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  entity.fields.forEach((field, f) => {
    const runtimeField = bound.fieldByName.get(field.name);
    if (!runtimeField) {
      issues.push(
        issue(
          `${base}.fields.${f}.name`,
          'runtime.binding.field_missing',
          `${bound.datasetId}.${bound.name} exposes no field \`${field.name}\`${hint(field.name, bound.fieldByName.keys())}`,
        ),
      );
      return;
    }
    const expected = field.type === 'code' ? 'string' : field.type;
    if (runtimeField.type !== expected) {
      issues.push(
        issue(
          `${base}.fields.${f}.type`,
          'runtime.binding.field_type_mismatch',
          `\`${field.type}\` does not match the relay field type \`${runtimeField.type}\``,
        ),
      );
    } else if (runtimeField.nullable && !(field.nullable ?? !field.required)) {
      // The entity's JSON Schema would refuse the nulls the relay serves.
      issues.push(
        issue(
          `${base}.fields.${f}.nullable`,
          'runtime.binding.field_type_mismatch',
          `${bound.datasetId}.${bound.name}.${field.name} is nullable in the relay config: declare \`nullable: true\``,
        ),
      );
    }
  });
  // Records carry every public field, and the entity's JSON Schema admits no other member.
  const described = new Set(entity.fields.map((field) => field.name));
  const undescribed = bound.fields.filter((field) => !described.has(field.name)).map((field) => field.name);
  if (undescribed.length > 0) {
    issues.push(
      issue(
        `${base}.fields`,
        'runtime.binding.field_undescribed',
        `${bound.datasetId}.${bound.name} also serves ${undescribed.map((name) => `\`${name}\``).join(', ')}: describe every field the relay serves`,
      ),
    );
  }
  entity.relationships.forEach((rel, r) => {
    const runtimeRel = bound.relationships.get(rel.name);
    if (!runtimeRel || runtimeRel.target !== rel.target_entity) {
      issues.push(
        issue(
          `${base}.relationships.${r}.name`,
          'runtime.binding.relationship_missing',
          `${bound.datasetId}.${bound.name} has no relationship \`${rel.name}\` to \`${rel.target_entity}\` in the relay config`,
        ),
      );
    }
  });
  return issues;
}
