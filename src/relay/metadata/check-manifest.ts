// Cross-reference rules of a manifest (ids unique, references resolve, offerings point at the verifier).
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { hint } from '../../platform/config/did-you-mean.ts';
import { unknownPrefix } from '../catalog/expand-iri.ts';
import { IRI_FORBIDDEN } from '../config/schema-parts.ts';
import { checkManifestForms } from './check-manifest-forms.ts';
import { checkNodeIris } from './check-manifest-node-iris.ts';
import { checkPublishablePaths } from './check-manifest-paths.ts';
import { manifestIriValues } from './manifest-iri-values.ts';
import { manifestIssue as issue, unknownReference as missing } from './manifest-issue.ts';
import type { Manifest, ManifestDataset } from './manifest-schema.ts';
import { LICENCE_IRI } from './renderers/rdf/common-nodes.ts';

/** ODRL left operands whose right operand must be an IRI, not a literal. */
const IRI_OPERANDS = new Set(['purpose', 'recipient', 'spatial', 'industry', 'systemDevice']);

/** Absolute IRI schemes besides http(s) and urn that identifiers use (DIDs for authorities, for example). */
const OTHER_SCHEMES = /^(did|tag|mailto):[^\s]+$/;

type Check = (manifest: Manifest) => ConfigIssue[];

export const MANIFEST_CHECKS: readonly Check[] = [
  checkUniqueIds,
  checkIris,
  checkDatasets,
  checkEvidence,
  checkServices,
  checkManifestForms,
  checkNodeIris,
  checkPublishablePaths,
];

export function checkManifest(manifest: Manifest): ConfigIssue[] {
  return MANIFEST_CHECKS.flatMap((check) => check(manifest));
}

function duplicates(
  items: readonly { id?: string; name?: string }[],
  path: string,
  what: string,
): ConfigIssue[] {
  const seen = new Set<string>();
  const issues: ConfigIssue[] = [];
  items.forEach((item, index) => {
    const key = item.id ?? item.name ?? '';
    if (seen.has(key)) issues.push(issue(`${path}.${index}`, `duplicate ${what} \`${key}\``));
    seen.add(key);
  });
  return issues;
}

function checkUniqueIds(manifest: Manifest): ConfigIssue[] {
  const issues = [
    ...duplicates(manifest.datasets, 'datasets', 'dataset id'),
    ...duplicates(manifest.evidence_types, 'evidence_types', 'evidence type id'),
    ...duplicates(manifest.requirements, 'requirements', 'requirement id'),
    ...duplicates(manifest.authorities, 'authorities', 'authority id'),
    ...duplicates(manifest.public_services, 'public_services', 'public service id'),
    ...duplicates(manifest.data_services, 'data_services', 'data service id'),
    ...duplicates(manifest.forms, 'forms', 'form id'),
    ...duplicates(manifest.codelists, 'codelists', 'codelist id'),
    ...duplicates(manifest.profiles, 'profiles', 'profile id'),
  ];
  // Offering ids are global: they are path segments of /metadata/evidence-offerings/{id}.
  const offerings = manifest.datasets.flatMap((dataset, d) =>
    dataset.evidence_offerings.map((offering, o) => ({
      id: offering.id,
      path: `datasets.${d}.evidence_offerings.${o}`,
    })),
  );
  const seen = new Set<string>();
  for (const offering of offerings) {
    if (seen.has(offering.id))
      issues.push(issue(offering.path, `duplicate evidence offering id \`${offering.id}\``));
    seen.add(offering.id);
  }
  manifest.datasets.forEach((dataset, d) => {
    issues.push(...duplicates(dataset.entities, `datasets.${d}.entities`, 'entity name'));
    dataset.entities.forEach((entity, e) => {
      issues.push(...duplicates(entity.fields, `datasets.${d}.entities.${e}.fields`, 'field name'));
      issues.push(
        ...duplicates(entity.relationships, `datasets.${d}.entities.${e}.relationships`, 'relationship name'),
      );
    });
  });
  manifest.codelists.forEach((codelist, c) => {
    issues.push(
      ...duplicates(
        codelist.concepts.map((concept) => ({ id: concept.code })),
        `codelists.${c}.concepts`,
        'code',
      ),
    );
  });
  return issues;
}

const notAnIri = (path: string, value: string) =>
  issue(path, `\`${value}\` is not an IRI: percent-encode spaces, quotes and <>{}|\\^\``);

function checkIris(manifest: Manifest): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const [path, value] of manifestIriValues(manifest)) {
    if (IRI_FORBIDDEN.test(value)) {
      issues.push(notAnIri(path, value));
      continue;
    }
    if (OTHER_SCHEMES.test(value) && !((value.split(':')[0] as string) in manifest.vocabularies)) continue;
    const prefix = unknownPrefix(value, manifest.vocabularies);
    if (prefix === '(none)') {
      issues.push(issue(path, `\`${value}\` is not an IRI (use https://... or a vocabularies prefix)`));
    } else if (prefix !== undefined) {
      issues.push(
        issue(
          path,
          `\`${value}\` uses unknown vocabulary prefix \`${prefix}\`${hint(prefix, Object.keys(manifest.vocabularies))}`,
        ),
      );
    }
  }
  return issues;
}

function checkDatasets(manifest: Manifest): ConfigIssue[] {
  const codelists = new Set(manifest.codelists.map((codelist) => codelist.id));
  return manifest.datasets.flatMap((dataset, d) => {
    const issues: ConfigIssue[] = [];
    const entityNames = new Set(dataset.entities.map((entity) => entity.name));
    dataset.entities.forEach((entity, e) => {
      const base = `datasets.${d}.entities.${e}`;
      const fieldNames = entity.fields.map((field) => field.name);
      entity.identifiers.forEach((identifier, i) => {
        if (!fieldNames.includes(identifier.name))
          issues.push(missing(`${base}.identifiers.${i}.name`, 'field', identifier.name, fieldNames));
      });
      if (entity.identifiers.length > 1)
        issues.push(issue(`${base}.identifiers`, 'declare at most one primary identifier'));
      entity.fields.forEach((field, f) => {
        if (field.codelist !== undefined && !codelists.has(field.codelist))
          issues.push(missing(`${base}.fields.${f}.codelist`, 'codelist', field.codelist, codelists));
      });
      entity.relationships.forEach((rel, r) => {
        if (!entityNames.has(rel.target_entity))
          issues.push(
            missing(`${base}.relationships.${r}.target_entity`, 'entity', rel.target_entity, entityNames),
          );
      });
    });
    // A licence given as a URL is written as the licence's IRI; in words, as its label.
    if (
      dataset.license !== undefined &&
      LICENCE_IRI.test(dataset.license) &&
      IRI_FORBIDDEN.test(dataset.license)
    )
      issues.push(notAnIri(`datasets.${d}.license`, dataset.license));
    issues.push(...checkPolicy(manifest, dataset, `datasets.${d}.policy`));
    return issues;
  });
}

function checkPolicy(manifest: Manifest, dataset: ManifestDataset, base: string): ConfigIssue[] {
  const policy = dataset.policy;
  if (!policy) return [];
  const issues: ConfigIssue[] = [];
  // An Offer's assigner is a party with an IRI: the declared one, else the publisher's, which must then exist.
  const publisher = dataset.publisher ?? manifest.catalog.publisher;
  if (policy.assigner === undefined && publisher.iri === undefined) {
    issues.push(
      issue(
        `${base}.assigner`,
        'an ODRL Offer needs an assigner IRI: set it, or the iri of the dataset (or catalog) publisher',
      ),
    );
  }
  for (const kind of ['permissions', 'prohibitions'] as const) {
    policy[kind].forEach((rule, r) => {
      const rules = [rule, ...rule.duties];
      rules.forEach((each, i) => {
        const at = i === 0 ? `${base}.${kind}.${r}` : `${base}.${kind}.${r}.duties.${i - 1}`;
        // Actions, operands, operators and datatypes are written as IRIs (a bare term is an ODRL or XSD one).
        if (IRI_FORBIDDEN.test(each.action)) issues.push(notAnIri(`${at}.action`, each.action));
        each.constraints.forEach((constraint, c) => {
          for (const member of ['left_operand', 'operator', 'datatype'] as const) {
            const value = constraint[member];
            if (value !== undefined && IRI_FORBIDDEN.test(value))
              issues.push(notAnIri(`${at}.constraints.${c}.${member}`, value));
          }
          if (IRI_OPERANDS.has(constraint.left_operand) && !('iri' in constraint.right_operand)) {
            issues.push(
              issue(
                `${at}.constraints.${c}.right_operand`,
                `\`${constraint.left_operand}\` constraints need an IRI operand ({ iri: ... })`,
              ),
            );
          }
        });
      });
    });
  }
  return issues;
}

function checkEvidence(manifest: Manifest): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const evidenceTypes = new Set(manifest.evidence_types.map((type) => type.id));
  const requirements = new Set(manifest.requirements.map((requirement) => requirement.id));
  manifest.evidence_types.forEach((type, t) => {
    type.proves.forEach((id, p) => {
      if (!requirements.has(id))
        issues.push(missing(`evidence_types.${t}.proves.${p}`, 'requirement', id, requirements));
    });
  });
  manifest.requirements.forEach((requirement, r) => {
    requirement.evidence_type_lists.forEach((list, l) => {
      list.evidence_types.forEach((id, i) => {
        if (!evidenceTypes.has(id)) {
          issues.push(
            missing(
              `requirements.${r}.evidence_type_lists.${l}.evidence_types.${i}`,
              'evidence type',
              id,
              evidenceTypes,
            ),
          );
        }
      });
    });
  });
  manifest.datasets.forEach((dataset, d) => {
    dataset.evidence_offerings.forEach((offering, o) => {
      const base = `datasets.${d}.evidence_offerings.${o}`;
      if (!evidenceTypes.has(offering.evidence_type))
        issues.push(missing(`${base}.evidence_type`, 'evidence type', offering.evidence_type, evidenceTypes));
      const entity = dataset.entities.find((candidate) => candidate.name === offering.entity);
      if (!entity) {
        issues.push(
          missing(
            `${base}.entity`,
            'entity',
            offering.entity,
            dataset.entities.map((e) => e.name),
          ),
        );
      } else {
        const fields = entity.fields.map((field) => field.name);
        offering.lookup_keys.forEach((key, k) => {
          if (!fields.includes(key)) issues.push(missing(`${base}.lookup_keys.${k}`, 'field', key, fields));
        });
      }
      if (offering.access.kind !== 'verifier') {
        issues.push(
          issue(
            `${base}.access.kind`,
            `\`${offering.access.kind}\` is not supported: offerings point at a verifier (kind: verifier)`,
            'runtime.binding.unsupported_evidence_offering',
          ),
        );
      }
      if (offering.access.endpoint_url === undefined && offering.access.discovery_url === undefined)
        issues.push(issue(`${base}.access`, 'set endpoint_url, discovery_url or both'));
    });
  });
  return issues;
}

function checkServices(manifest: Manifest): ConfigIssue[] {
  const ids = {
    authority: new Set(manifest.authorities.map((a) => a.id)),
    requirement: new Set(manifest.requirements.map((r) => r.id)),
    dataset: new Set(manifest.datasets.map((d) => d.id)),
    'data service': new Set(manifest.data_services.map((s) => s.id)),
    form: new Set(manifest.forms.map((f) => f.id)),
  };
  const issues: ConfigIssue[] = [];
  const refs = (path: string, what: keyof typeof ids, values: readonly string[]) => {
    values.forEach((value, i) => {
      if (!ids[what].has(value)) issues.push(missing(`${path}.${i}`, what, value, ids[what]));
    });
  };
  manifest.public_services.forEach((service, s) => {
    const base = `public_services.${s}`;
    const authority = service.competent_authority;
    // CPSV-AP (and BRegDCAT-AP) require a public service's competent authority, and that authority's spatial
    // coverage, which the documents take from the authority, else the service's jurisdiction, else the catalog's.
    if (authority === undefined) {
      issues.push(
        issue(
          `${base}.competent_authority`,
          'a public service needs its competent authority (CPSV-AP requires one)',
        ),
      );
    } else if (!ids.authority.has(authority)) {
      issues.push(missing(`${base}.competent_authority`, 'authority', authority, ids.authority));
    } else if (service.jurisdiction === undefined && manifest.catalog.spatial_coverage === undefined) {
      const a = manifest.authorities.findIndex((entry) => entry.id === authority);
      if (manifest.authorities[a]?.spatial === undefined) {
        issues.push(
          issue(
            `authorities.${a}.spatial`,
            `authority \`${authority}\` of public service \`${service.id}\` needs a spatial coverage (CPSV-AP requires one): set it, the service's jurisdiction or catalog.spatial_coverage`,
          ),
        );
      }
    }
    refs(`${base}.holds_requirements`, 'requirement', service.holds_requirements);
    refs(`${base}.produces`, 'dataset', service.produces);
    refs(`${base}.data_services`, 'data service', service.data_services);
    refs(`${base}.forms`, 'form', service.forms);
  });
  manifest.data_services.forEach((service, s) => {
    refs(`data_services.${s}.serves_datasets`, 'dataset', service.serves_datasets);
  });
  return issues;
}
