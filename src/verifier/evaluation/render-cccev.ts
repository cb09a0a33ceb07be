// CCCEV-shaped JSON-LD of evaluated claims: one cccev:Evidence node per claim. Conformance to CCCEV 2.00 is
// not claimed; redacted claims carry no value and no outcome.
import type { ClaimConfig } from '../config/schema.ts';
import type { ClaimResult } from './build-claim-result.ts';

export const CCCEV_CONTEXT = {
  cccev: 'http://data.europa.eu/m8g/',
  dcterms: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  time: 'http://www.w3.org/2006/time#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
} as const;

export function renderCccev(
  results: readonly ClaimResult[],
  claims: ReadonlyMap<string, ClaimConfig>,
  serviceId: string,
): Record<string, unknown> {
  return {
    '@context': CCCEV_CONTEXT,
    '@graph': results.map((result) => evidenceNode(result, claims, serviceId)),
  };
}

function evidenceNode(
  result: ClaimResult,
  claims: ReadonlyMap<string, ClaimConfig>,
  serviceId: string,
): Record<string, unknown> {
  const claimId = String(result.claim_id);
  const claim = claims.get(claimId);
  const id = `urn:ambit:evidence:${String(result.evaluation_id)}:${encodeURIComponent(claimId)}`;
  const evidenceType =
    claim?.cccev?.evidence_type_iri ??
    `urn:ambit:claim:${encodeURIComponent(claimId)}:${String(result.claim_version)}`;
  const node: Record<string, unknown> = {
    '@id': id,
    '@type': 'cccev:Evidence',
    'dcterms:identifier': String(result.evaluation_id),
    'dcterms:title': claim?.title ?? claimId,
    'cccev:isProvidedBy': { '@type': 'foaf:Agent', 'dcterms:identifier': serviceId },
    // `cccev:isConformantTo` is the name the interface uses; CCCEV 2.1.0 states the same link as dct:conformsTo
    // (its `Evidence.isConformantTo` term), whose range is an evidence type.
    'cccev:isConformantTo': { '@id': evidenceType },
    'dcterms:conformsTo': { '@id': evidenceType, '@type': 'cccev:EvidenceType' },
    'cccev:supportsRequirement': {
      '@id': claim?.cccev?.requirement ?? `urn:ambit:requirement:${encodeURIComponent(claimId)}`,
      '@type': 'cccev:Requirement',
    },
    'cccev:validityPeriod': {
      '@id': `${id}#validity`,
      '@type': 'time:ProperInterval',
      'time:hasBeginning': {
        '@type': 'time:Instant',
        'time:inXSDDateTimeStamp': { '@value': String(result.issued_at), '@type': 'xsd:dateTimeStamp' },
      },
    },
  };
  if (result.disclosure !== 'redacted') {
    node['cccev:supportsValue'] = {
      '@id': `${id}#value`,
      '@type': 'cccev:SupportedValue',
      'cccev:providesValueFor': {
        '@id': `urn:ambit:concept:${encodeURIComponent(claimId)}`,
        '@type': 'cccev:InformationConcept',
        'dcterms:identifier': claimId,
      },
      'cccev:value': literal(result.value),
    };
  }
  return node;
}

/** Typed JSON-LD literal; objects and lists are carried as JSON literals. */
function literal(value: unknown): unknown {
  if (typeof value === 'boolean') return { '@value': value, '@type': 'xsd:boolean' };
  if (typeof value === 'number') {
    return { '@value': value, '@type': Number.isInteger(value) ? 'xsd:integer' : 'xsd:decimal' };
  }
  if (typeof value === 'string') return { '@value': value, '@type': 'xsd:string' };
  if (value === null) return null;
  return { '@value': value, '@type': '@json' };
}
