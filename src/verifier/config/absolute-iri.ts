// Absolute IRIs (RFC 3987) for config values that become RDF nodes: a JSON-LD processor drops a relative or
// malformed @id, and with it every triple that names it, so such a value is refused at load instead.
import { z } from 'zod';

// scheme ":" then IRI characters: no white space or controls, none of <>"{}|\^`, and `%` only as %XX.
const ABSOLUTE_IRI = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[^\s\p{Cc}<>"{}|\\^`%]|%[0-9A-Fa-f]{2})+$/u;

export function isAbsoluteIri(value: string): boolean {
  // A fragment is the last component: it holds no second `#`.
  return ABSOLUTE_IRI.test(value) && value.indexOf('#') === value.lastIndexOf('#');
}

export const absoluteIri = z
  .string()
  .max(2048)
  .refine(
    isAbsoluteIri,
    'must be an absolute IRI such as https://example.org/requirements/r1 or urn:example:r1 (a scheme, no spaces, none of <>"{}|\\^`)',
  );
