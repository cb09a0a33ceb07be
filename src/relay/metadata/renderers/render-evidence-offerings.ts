// Evidence offerings, every member of the spec's offering table in its order; they describe, never verify.
import { textOrNull } from '../model/localized-text.ts';
import type { EvidenceOffering, MetadataModel } from '../model/metadata-model.ts';

export interface OfferingFilters {
  /** Matches the evidence type id or IRI. */
  readonly evidenceType?: string | undefined;
  /** ISO 3166-1 alpha-2, case-insensitive; matches the jurisdiction or the issuing authority country. */
  readonly country?: string | undefined;
  readonly procedureContext?: string | undefined;
}

export function allOfferings(model: MetadataModel): EvidenceOffering[] {
  return model.datasets.flatMap((dataset) => dataset.offerings);
}

export function filterOfferings(
  offerings: readonly EvidenceOffering[],
  filters: OfferingFilters,
): EvidenceOffering[] {
  const country = filters.country?.toUpperCase();
  return offerings.filter(
    (offering) =>
      (filters.evidenceType === undefined ||
        offering.evidenceType.id === filters.evidenceType ||
        offering.evidenceType.iri === filters.evidenceType) &&
      (country === undefined ||
        offering.jurisdiction.country === country ||
        offering.issuingAuthority.country === country) &&
      (filters.procedureContext === undefined ||
        offering.procedureContexts.includes(filters.procedureContext)),
  );
}

export function renderEvidenceOfferingList(offerings: readonly EvidenceOffering[]) {
  return { evidence_offerings: offerings.map(renderEvidenceOffering) };
}

export function renderEvidenceOffering(offering: EvidenceOffering) {
  return {
    id: offering.id,
    title: offering.title.text,
    iri: offering.iri,
    description: textOrNull(offering.description) ?? '',
    dataset_id: offering.datasetId,
    entity: offering.entity,
    evidence_type: {
      id: offering.evidenceType.id,
      iri: offering.evidenceType.iri,
      name: offering.evidenceType.name,
    },
    evidence_type_iri: offering.evidenceType.iri,
    issuing_authority: {
      id: offering.issuingAuthority.id,
      iri: offering.issuingAuthority.iri ?? null,
      name: offering.issuingAuthority.name,
      country: offering.issuingAuthority.country,
    },
    jurisdiction: { country: offering.jurisdiction.country, region: offering.jurisdiction.region },
    level_of_assurance: offering.levelOfAssurance,
    lookup_keys: offering.lookupKeys,
    policy: { purpose: offering.policy.purpose },
    procedure_contexts: offering.procedureContexts,
    requirement_iris: offering.requirementIris,
    information_concepts: offering.informationConcepts,
    verification_request_schema_url: offering.verificationRequestSchemaUrl,
    access: {
      kind: offering.access.kind,
      ruleset: offering.access.ruleset,
      endpoint_url: offering.access.endpointUrl,
      discovery_url: offering.access.discoveryUrl,
      conforms_to: offering.access.conformsTo,
    },
  };
}
