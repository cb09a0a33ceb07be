// Legislation a dataset applies (`applicable_legislation`), with its type from the EU "resource type" authority
// table, which BRegDCAT-AP requires on every legal resource.

export const RESOURCE_TYPE_SCHEME = 'http://publications.europa.eu/resource/authority/resource-type';

export interface LegalResource {
  readonly iri: string;
  /** A concept of RESOURCE_TYPE_SCHEME, or undefined when neither declared nor recognisable from the IRI. */
  readonly type: string | undefined;
}

// European Legislation Identifiers of EU acts name their kind: .../eli/reg/2016/679/oj is a regulation.
const EU_ELI = /^https?:\/\/data\.europa\.eu\/eli\/(reg|dir|dec)(_impl|_del)?\//;

/** A legal resource from its IRI and, when declared, its resource-type code (`REG`, `DIR`, ...). */
export function legalResource(iri: string, typeCode?: string): LegalResource {
  const code = typeCode ?? inferredCode(iri);
  return { iri, type: code === undefined ? undefined : `${RESOURCE_TYPE_SCHEME}/${code}` };
}

function inferredCode(iri: string): string | undefined {
  const match = EU_ELI.exec(iri);
  return match ? `${match[1]}${match[2] ?? ''}`.toUpperCase() : undefined;
}
