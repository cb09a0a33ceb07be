// The shapes a CCCEV rendering is checked against: the official CCCEV 2.1.0 shapes (one upstream erratum
// corrected) and a shape for the well-formedness of `cv:value` literals, which those shapes leave unchecked.
import type { Term } from '@rdfjs/types';
import rdf from '@zazuko/env';
import { Parser } from 'n3';
import { type Dataset, turtleToDataset } from './rdf-dataset.ts';

export const CV = 'http://data.europa.eu/m8g/';
export const TIME = 'http://www.w3.org/2006/time#';
export const XSD = 'http://www.w3.org/2001/XMLSchema#';
export const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const SHAPES = 'cccev/2.1.0/shacl/cccev-ap-SHACL.ttl';

/**
 * Every `cv:value` literal is well formed for its datatype: SHACL `sh:datatype` fails an ill-formed literal
 * (SHACL §4.1.2), checked against the XSD lexical spaces; the list holds every datatype a JSON value can map to.
 */
export const WELL_FORMED_VALUES = rdf.dataset(
  new Parser().parse(`
    @prefix sh: <http://www.w3.org/ns/shacl#> . @prefix cv: <${CV}> . @prefix xsd: <${XSD}> . @prefix rdf: <${RDF}> .
    <urn:shape:value> a sh:NodeShape ; sh:targetObjectsOf cv:value ; sh:or (
      [ sh:datatype xsd:boolean ] [ sh:datatype xsd:integer ] [ sh:datatype xsd:decimal ] [ sh:datatype xsd:double ]
      [ sh:datatype xsd:date ] [ sh:datatype xsd:string ] [ sh:datatype rdf:JSON ] ) .`),
);

/**
 * The CCCEV 2.1.0 shapes, with one upstream erratum corrected: they name the OWL-Time instant class with an
 * `https://` IRI, while OWL-Time (and the ProperInterval range they check) is `http://www.w3.org/2006/time#`.
 */
export function cccevShapes(): Dataset {
  const shapes = turtleToDataset(SHAPES);
  const wrong = 'https://www.w3.org/2006/time#Instant';
  const fix = (term: Term) =>
    term.termType === 'NamedNode' && term.value === wrong ? rdf.namedNode(`${TIME}Instant`) : term;
  return rdf.dataset(
    [...shapes].map((q) => rdf.quad(fix(q.subject) as never, q.predicate, fix(q.object) as never)),
  );
}
