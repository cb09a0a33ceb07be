// JSON-LD building blocks shared by the RDF renderers: namespaces, an inline `@context` (documents never cite a
// remote context, so they expand offline), literals, references and node merging.
import { createHash } from 'node:crypto';
import type { LocalizedText } from '../../model/metadata-model.ts';

export const NAMESPACES = {
  adms: 'http://www.w3.org/ns/adms#',
  cpsv: 'http://purl.org/vocab/cpsv#',
  cv: 'http://data.europa.eu/m8g/',
  dcat: 'http://www.w3.org/ns/dcat#',
  dcatap: 'http://data.europa.eu/r5r/',
  dct: 'http://purl.org/dc/terms/',
  eli: 'http://data.europa.eu/eli/ontology#',
  foaf: 'http://xmlns.com/foaf/0.1/',
  odrl: 'http://www.w3.org/ns/odrl/2/',
  rdfs: 'http://www.w3.org/2000/01/rdf-schema#',
  sh: 'http://www.w3.org/ns/shacl#',
  skos: 'http://www.w3.org/2004/02/skos/core#',
  xsd: 'http://www.w3.org/2001/XMLSchema#',
} as const;

export type Prefix = keyof typeof NAMESPACES;

/** A JSON-LD node object; keys are compact IRIs of NAMESPACES. */
export interface Node {
  '@id'?: string;
  '@type'?: string | string[];
  [property: string]: unknown;
}

/** The inline `@context` declaring the given prefixes, in alphabetical order. */
export function contextOf(...prefixes: Prefix[]): Record<string, string> {
  return Object.fromEntries([...new Set(prefixes)].sort().map((prefix) => [prefix, NAMESPACES[prefix]]));
}

/** A JSON-LD document: one node, or a `@graph` of several. */
export function document(context: Record<string, string>, nodes: readonly Node[]): Record<string, unknown> {
  return { '@context': context, '@graph': nodes };
}

/**
 * An absolute IRI in compact form when one of the document's prefixes covers it (readability only: both expand
 * alike). Only prefixes the document's `@context` declares may be used.
 */
export function compact(iri: string, prefixes: readonly Prefix[]): string {
  for (const prefix of prefixes) {
    const namespace = NAMESPACES[prefix];
    if (iri.startsWith(namespace) && /^[A-Za-z_][\w.-]*$/.test(iri.slice(namespace.length))) {
      return `${prefix}:${iri.slice(namespace.length)}`;
    }
  }
  return iri;
}

export const ref = (iri: string): Node => ({ '@id': iri });
export const typedRef = (iri: string, type: string | string[]): Node => ({ '@id': iri, '@type': type });

/** One value as itself, several as an array; absent members are left out by spreading `optional`. */
export function oneOrMany<T>(values: readonly T[]): T | T[] {
  return values.length === 1 ? (values[0] as T) : [...values];
}

/** `{ key: value }` when the value is present (and, for arrays, non-empty), else nothing to spread. */
export function optional(key: string, value: unknown): Record<string, unknown> {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return {};
  return { [key]: Array.isArray(value) ? oneOrMany(value) : value };
}

export interface LangString {
  readonly '@value': string;
  readonly '@language': string;
}

/** Every translation of a text as a language-tagged literal; a text of unknown language gets `fallback`. */
export function texts(text: LocalizedText, fallback: string): LangString | LangString[] {
  return derivedTexts(text, fallback, (value) => value);
}

/**
 * A text made from another (`Health` -> `Health (JSON)`), in each language of that one, so every literal is tagged
 * with the language it is written in; a text of unknown language gets `fallback`.
 */
export function derivedTexts(
  text: LocalizedText,
  fallback: string,
  build: (value: string, language: string) => string,
): LangString | LangString[] {
  const entries = Object.entries(text.languages);
  if (entries.length === 0) return langString(build(text.text, fallback), fallback);
  return oneOrMany(entries.map(([language, value]) => langString(build(value, language), language)));
}

/** The translation of a text in a language, else its main text. */
export const inLanguage = (text: LocalizedText, language: string): string =>
  text.languages[language] ?? text.text;

export const langString = (value: string, language: string): LangString => ({
  '@value': value,
  '@language': language,
});

export const typedLiteral = (value: string, datatype: string) => ({ '@value': value, '@type': datatype });

/** Dates and timestamps as copied from the manifest: `xsd:date` or `xsd:dateTime`. */
export function dateLiteral(value: string) {
  return typedLiteral(value, /^\d{4}-\d{2}-\d{2}$/.test(value) ? 'xsd:date' : 'xsd:dateTime');
}

/**
 * The IRI of a part of the resource `iri` names (its output, channel, evidence type list): `iri#name`, or, when
 * `iri` already has a fragment, that fragment continued with `/name` (an IRI has one `#`, RFC 3987).
 */
export function partIri(iri: string, name: string): string {
  return iri.includes('#') ? `${iri}/${name}` : `${iri}#${name}`;
}

/**
 * A stable blank node label from free text: same text, same label. The readable slug alone would merge texts it
 * cannot tell apart (`ACME Ltd` and `Acme, Ltd.`, or every name without a Latin letter), so a digest of the exact
 * text follows it.
 */
export function blankNode(kind: string, text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, 48)
    .replace(/^-|-$/g, '');
  const digest = createHash('sha256').update(text).digest('hex').slice(0, 12);
  return `_:${kind}-${slug === '' ? '' : `${slug}-`}${digest}`;
}

/**
 * Nodes with the same `@id` merged into the first: types are united, other members kept from the first node
 * that has them. The graph stays in first-seen order, so output is deterministic.
 */
export function mergeNodes(nodes: readonly Node[]): Node[] {
  const byId = new Map<string, Node>();
  const out: Node[] = [];
  for (const node of nodes) {
    const id = node['@id'];
    const seen = id === undefined ? undefined : byId.get(id);
    if (seen === undefined) {
      const copy = { ...node };
      if (id !== undefined) byId.set(id, copy);
      out.push(copy);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '@type') {
        const types = [...new Set([...asArray(seen['@type']), ...asArray(value as string | string[])])];
        seen['@type'] = oneOrMany(types);
      } else if (!(key in seen)) {
        seen[key] = value;
      }
    }
  }
  return out;
}

function asArray(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}
