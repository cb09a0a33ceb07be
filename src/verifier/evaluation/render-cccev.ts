// CCCEV-shaped JSON-LD of evaluated claims: one cccev:Evidence node per claim. Conformance to CCCEV 2.00 is
// not claimed; redacted claims carry no value and no outcome. Every IRI and literal must survive conversion to
// RDF: a malformed @id drops its triples, and a lexical form invalid for its datatype makes the graph invalid.
import type { ClaimCatalog } from '../claims/build-claim-catalog.ts';
import type { ClaimConfig, ValueType, VerifierConfig } from '../config/schema.ts';
import type { ClaimResult } from './build-claim-result.ts';

export const CCCEV_CONTEXT = {
  // Object and list values are JSON literals (`@json`), a JSON-LD 1.1 feature.
  '@version': 1.1,
  cccev: 'http://data.europa.eu/m8g/',
  dcterms: 'http://purl.org/dc/terms/',
  foaf: 'http://xmlns.com/foaf/0.1/',
  time: 'http://www.w3.org/2006/time#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
} as const;

/** What a CCCEV rendering reads of one claim's configuration. */
export interface CccevClaimTerms {
  readonly claim_id: string;
  readonly title: string;
  readonly requirement?: string;
  readonly evidence_type_iri?: string;
  readonly value_type: ValueType;
}

/**
 * What a CCCEV rendering reads of the configuration. Kept with a stored evaluation, so that a render after a
 * configuration change (a restart, another instance on the shared store) answers as the evaluation did.
 */
export interface CccevTerms {
  readonly service_id: string;
  /** A list, not a map keyed by claim id: the terms travel as JSON through the state store. */
  readonly claims: readonly CccevClaimTerms[];
}

export function cccevTerms(claims: Iterable<ClaimConfig>, serviceId: string): CccevTerms {
  return {
    service_id: serviceId,
    claims: [...claims].map((claim) => ({
      claim_id: claim.id,
      title: claim.title,
      ...(claim.cccev?.requirement === undefined ? {} : { requirement: claim.cccev.requirement }),
      ...(claim.cccev?.evidence_type_iri === undefined
        ? {}
        : { evidence_type_iri: claim.cccev.evidence_type_iri }),
      value_type: claim.value.type,
    })),
  };
}

/** The current configuration's terms for the claims these results answer. */
export function cccevTermsOf(
  runtime: { readonly catalog: ClaimCatalog; readonly config: VerifierConfig },
  results: readonly ClaimResult[],
): CccevTerms {
  const configs = results.flatMap((result) => {
    const claim = runtime.catalog.claims.get(String(result.claim_id));
    return claim === undefined ? [] : [claim.config];
  });
  return cccevTerms(configs, runtime.config.evidence.service_id);
}

export function renderCccev(results: readonly ClaimResult[], terms: CccevTerms): Record<string, unknown> {
  return {
    '@context': CCCEV_CONTEXT,
    '@graph': results.map((result) => evidenceNode(result, terms)),
  };
}

function evidenceNode(result: ClaimResult, terms: CccevTerms): Record<string, unknown> {
  const claimId = String(result.claim_id);
  const claim = terms.claims.find((candidate) => candidate.claim_id === claimId);
  const serviceId = terms.service_id;
  const id = `urn:ambit:evidence:${String(result.evaluation_id)}:${encodeURIComponent(claimId)}`;
  // Claim ids and versions are free text in these URNs (a version may hold spaces): percent-encoded.
  const evidenceType =
    claim?.evidence_type_iri ??
    `urn:ambit:claim:${encodeURIComponent(claimId)}:${encodeURIComponent(String(result.claim_version))}`;
  const node: Record<string, unknown> = {
    '@id': id,
    '@type': 'cccev:Evidence',
    'dcterms:identifier': String(result.evaluation_id),
    'dcterms:title': claim?.title ?? claimId,
    'cccev:isProvidedBy': { '@type': 'foaf:Agent', 'dcterms:identifier': serviceId },
    // `cccev:isConformantTo` is the name the interface uses; CCCEV 2.1.0 states the same link as dct:conformsTo
    // (its `Evidence.isConformantTo` term), whose range is an evidence type.
    'cccev:isConformantTo': linkedNode(evidenceType),
    'dcterms:conformsTo': linkedNode(evidenceType, 'EvidenceType'),
    'cccev:supportsRequirement': linkedNode(
      claim?.requirement ?? `urn:ambit:requirement:${encodeURIComponent(claimId)}`,
      'Requirement',
    ),
    'cccev:validityPeriod': {
      '@id': `${id}#validity`,
      '@type': 'time:ProperInterval',
      'time:hasBeginning': {
        '@type': 'time:Instant',
        'time:inXSDDateTimeStamp': { '@value': String(result.issued_at), '@type': 'xsd:dateTimeStamp' },
      },
    },
  };
  // Nothing to state when redacted, nor when the value is unknown (null): RDF has no null literal.
  if (result.disclosure !== 'redacted' && result.value !== null && result.value !== undefined) {
    node['cccev:supportsValue'] = {
      '@id': `${id}#value`,
      '@type': 'cccev:SupportedValue',
      'cccev:providesValueFor': {
        '@id': `urn:ambit:concept:${encodeURIComponent(claimId)}`,
        '@type': 'cccev:InformationConcept',
        'dcterms:identifier': claimId,
      },
      'cccev:value': literal(result.value, claim?.value_type ?? 'any'),
    };
  }
  return node;
}

/**
 * A node named by an IRI, typed with a CCCEV class when given. A configured IRI whose scheme is a prefix of the
 * context (`dcterms:creator`, `cccev:r1`) would be read as a compact IRI and name another node (dcterms' creator
 * property): its node unsets that prefix for itself, and names its class in full.
 */
function linkedNode(iri: string, cccevClass?: string): Record<string, unknown> {
  const scheme = iri.slice(0, iri.indexOf(':'));
  if (!Object.hasOwn(CCCEV_CONTEXT, scheme)) {
    return { '@id': iri, ...(cccevClass === undefined ? {} : { '@type': `cccev:${cccevClass}` }) };
  }
  return {
    '@context': { [scheme]: null },
    '@id': iri,
    ...(cccevClass === undefined ? {} : { '@type': `${CCCEV_CONTEXT.cccev}${cccevClass}` }),
  };
}

/**
 * Typed JSON-LD literal of a non-null value; objects and lists are carried as JSON literals. Safe integers stay
 * JSON numbers typed xsd:integer (written exactly in RDF). Any other number is written out here, as the decimal
 * the JSON text holds: JSON-LD turns a number (or any xsd:double) into a 16-digit xsd:double form, which gives
 * 0.30000000000000004 as 0.3 and the largest double as infinity.
 */
export function literal(value: unknown, type: ValueType): Record<string, unknown> {
  if (typeof value === 'boolean') return { '@value': value, '@type': 'xsd:boolean' };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { '@value': value, '@type': 'xsd:integer' };
    return { '@value': decimalText(value), '@type': Number.isInteger(value) ? 'xsd:integer' : 'xsd:decimal' };
  }
  if (typeof value === 'string') {
    return { '@value': value, '@type': type === 'date' && isXsdDate(value) ? 'xsd:date' : 'xsd:string' };
  }
  return { '@value': value, '@type': '@json' };
}

/**
 * A finite number in plain decimal notation (xsd:decimal and xsd:integer have no exponent), from the fewest digits
 * that read back as the same number: 1e21 is "1000000000000000000000", 5e-7 "0.0000005".
 */
export function decimalText(value: number): string {
  const [mantissa = '', exponent = '0'] = Math.abs(value).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  // How many of the digits come before the decimal point (none or fewer than none: leading zeros after it).
  const point = Number(exponent) + 1;
  const text =
    point <= 0
      ? `0.${'0'.repeat(-point)}${digits}`
      : point >= digits.length
        ? `${digits}${'0'.repeat(point - digits.length)}`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return value < 0 ? `-${text}` : text;
}

// XSD 1.1 date lexical form: year (4 digits or more, no leading zero past 4), month, day, optional time zone.
const XSD_DATE = /^-?(?:[1-9]\d{3,}|0\d{3})-(\d{2})-(\d{2})(?:Z|[+-](?:(?:0\d|1[0-3]):[0-5]\d|14:00))?$/;

/** A date claim value as xsd:date only when it is one (the value check accepts any text starting YYYY-MM-DD). */
export function isXsdDate(text: string): boolean {
  const match = XSD_DATE.exec(text);
  if (!match) return false;
  const year = Number(text.slice(0, text.indexOf('-', 1)));
  const month = Number(match[1]);
  const day = Number(match[2]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month);
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
