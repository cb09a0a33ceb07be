// One manifest dataset -> model dataset: entities, fields, relationships, ODRL policy and evidence offerings.
import type { Catalog, CatalogEntity } from '../../catalog/catalog.ts';
import type {
  Manifest,
  ManifestDataset,
  ManifestEntity,
  ManifestOdrlRule,
  ManifestOffering,
  ManifestPolicy,
} from '../manifest-schema.ts';
import { aggregatesOf } from './aggregate-meta.ts';
import type { IriExpander } from './build-model-from-manifest.ts';
import { legalResource } from './legal-resource.ts';
import { localizedText, optionalText } from './localized-text.ts';
import { STATIC_PATHS } from './metadata-links.ts';
import type {
  Agent,
  DatasetMeta,
  DatasetPolicy,
  EntityMeta,
  EvidenceOffering,
  OdrlConstraint,
  OdrlDuty,
} from './metadata-model.ts';

export interface DatasetBuildContext {
  readonly baseUrl: string;
  readonly expand: IriExpander;
  readonly agent: (publisher: Manifest['catalog']['publisher']) => Agent;
  readonly runtime: Catalog | undefined;
}

export function buildDatasetMeta(
  dataset: ManifestDataset,
  manifest: Manifest,
  context: DatasetBuildContext,
): DatasetMeta {
  const { expand, baseUrl } = context;
  const runtime = context.runtime?.datasets.get(dataset.id);
  return {
    id: dataset.id,
    iri: expand(dataset.iri) ?? `${baseUrl}/metadata/datasets/${dataset.id}`,
    title: localizedText(dataset.title),
    description: optionalText(dataset.description),
    owner: dataset.owner,
    publisher: dataset.publisher === undefined ? undefined : context.agent(dataset.publisher),
    sensitivity: dataset.sensitivity,
    accessRights: dataset.access_rights,
    updateFrequency: dataset.update_frequency,
    conformsTo: dataset.conforms_to.map((value) => expand(value)),
    applicableLegislation: dataset.applicable_legislation.map((entry) =>
      typeof entry === 'string'
        ? legalResource(expand(entry) as string)
        : legalResource(expand(entry.iri) as string, entry.type),
    ),
    spatialCoverage: expand(dataset.spatial_coverage ?? manifest.catalog.spatial_coverage),
    status: expand(dataset.status),
    keywords: dataset.keywords,
    themes: dataset.themes.map((value) => expand(value)),
    license: dataset.license,
    issued: dataset.issued,
    modified: dataset.modified,
    policy: dataset.policy === undefined ? undefined : policyOf(dataset.policy, expand),
    publicServices: dataset.public_services.map((service) => ({
      id: service.id,
      title: localizedText(service.title),
      description: optionalText(service.description),
    })),
    entities: dataset.entities.map((entity) =>
      entityOf(dataset.id, entity, expand, runtime?.entities.get(entity.name)),
    ),
    offerings: dataset.evidence_offerings.map((offering) =>
      offeringOf(dataset.id, offering, manifest, context),
    ),
    aggregates: aggregatesOf(runtime, baseUrl),
  };
}

function entityOf(
  datasetId: string,
  entity: ManifestEntity,
  expand: IriExpander,
  runtime: CatalogEntity | undefined,
): EntityMeta {
  return {
    datasetId,
    name: entity.name,
    title: entity.title === undefined ? { text: entity.name, languages: {} } : localizedText(entity.title),
    description: optionalText(entity.description),
    conceptUri: expand(entity.concept_uri),
    primaryKey: entity.identifiers[0]?.name ?? runtime?.primaryKey.name,
    fields: entity.fields.map((field) => ({
      name: field.name,
      title: optionalText(field.title),
      description: optionalText(field.description),
      type: field.type,
      required: field.required,
      nullable: field.nullable ?? !field.required,
      sensitive: field.sensitive ?? runtime?.fieldByName.get(field.name)?.sensitive ?? false,
      concepts: [
        ...new Set([...(field.concept_uri === undefined ? [] : [field.concept_uri]), ...field.concepts]),
      ].map((value) => expand(value)),
      codelist: field.codelist,
      unit: field.unit,
      language: field.language,
    })),
    relationships: entity.relationships.map((rel) => ({
      name: rel.name,
      target: rel.target_entity,
      cardinality: rel.cardinality,
      foreignKey: rel.foreign_key,
      conceptUri: expand(rel.concept_uri),
    })),
  };
}

function offeringOf(
  datasetId: string,
  offering: ManifestOffering,
  manifest: Manifest,
  { expand, baseUrl }: DatasetBuildContext,
): EvidenceOffering {
  // References were checked when the manifest loaded; the fallbacks only keep the types total.
  const type = manifest.evidence_types.find((candidate) => candidate.id === offering.evidence_type);
  const requirements = new Map(manifest.requirements.map((r) => [r.id, expand(r.iri)]));
  const authority = offering.issuing_authority;
  return {
    id: offering.id,
    iri: expand(offering.iri),
    title: localizedText(offering.title),
    description: optionalText(offering.description),
    datasetId,
    entity: offering.entity,
    evidenceType: {
      id: offering.evidence_type,
      iri: expand(type?.iri ?? offering.evidence_type),
      name: type === undefined ? offering.evidence_type : localizedText(type.title).text,
    },
    issuingAuthority: {
      id: authority.id,
      iri: expand(authority.iri),
      name: authority.name,
      country: authority.country,
    },
    jurisdiction: offering.jurisdiction ?? { country: authority.country, region: null },
    levelOfAssurance: offering.level_of_assurance,
    lookupKeys: offering.lookup_keys,
    policy: { purpose: offering.policy.purpose.map((value) => expand(value)) },
    procedureContexts: offering.procedure_contexts,
    requirementIris: (type?.proves ?? []).map((id) => requirements.get(id) ?? id),
    informationConcepts: (type?.information_concepts ?? []).map((value) => expand(value)),
    verificationRequestSchemaUrl: manifest.catalog.standards.json_schema
      ? `${baseUrl}/${STATIC_PATHS.entitySchema(datasetId, offering.entity)}`
      : null,
    access: {
      kind: 'verifier',
      ruleset: offering.access.ruleset,
      endpointUrl: offering.access.endpoint_url ?? null,
      discoveryUrl: offering.access.discovery_url ?? null,
      conformsTo: expand(offering.access.conforms_to),
    },
  };
}

function policyOf(policy: ManifestPolicy, expand: IriExpander): DatasetPolicy {
  const duty = (rule: ManifestOdrlRule | ManifestOdrlRule['duties'][number]): OdrlDuty => ({
    action: rule.action,
    target: expand(rule.target),
    assignee: expand(rule.assignee),
    constraints: rule.constraints.map(
      (constraint): OdrlConstraint => ({
        leftOperand: constraint.left_operand,
        operator: constraint.operator,
        rightOperand:
          'iri' in constraint.right_operand
            ? { iri: expand(constraint.right_operand.iri) }
            : { value: constraint.right_operand.value },
        datatype: constraint.datatype,
      }),
    ),
  });
  const rule = (each: ManifestOdrlRule) => ({ ...duty(each), duties: each.duties.map(duty) });
  return {
    uid: expand(policy.uid),
    assigner: expand(policy.assigner),
    profiles: policy.profile.map((value) => expand(value)),
    permissions: policy.permissions.map(rule),
    prohibitions: policy.prohibitions.map(rule),
  };
}
