// RDF datasets for SHACL validation: JSON-LD documents through jsonld with the offline loader (safe mode, so a key
// or value that would silently drop out of the graph is an error), Turtle files through n3.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { DatasetCore, Quad } from '@rdfjs/types';
import rdf from '@zazuko/env';
import jsonld from 'jsonld';
import { Parser } from 'n3';
import { standardsDir } from '../standards-dir.ts';
import { offlineDocumentLoader } from './offline-document-loader.ts';

export type Dataset = DatasetCore<Quad, Quad>;

/** The quads a JSON-LD document denotes, expanded with bundled contexts only. */
export async function jsonLdToDataset(document: unknown): Promise<Dataset> {
  const nquads = (await jsonld.toRDF(
    document as jsonld.JsonLdDocument,
    {
      format: 'application/n-quads',
      // biome-ignore lint/suspicious/noExplicitAny: the typings predate the loader's async signature
      documentLoader: offlineDocumentLoader as any,
      safe: true,
    } as jsonld.Options.ToRdf,
  )) as unknown as string;
  return rdf.dataset(new Parser({ format: 'N-Quads' }).parse(nquads));
}

/** One dataset of several Turtle files; relative paths are under STANDARDS_DIR. */
export function turtleToDataset(...files: string[]): Dataset {
  const quads = files.flatMap((file) =>
    new Parser({ format: 'Turtle' }).parse(readFileSync(resolve(standardsDir(), file), 'utf8')),
  );
  return rdf.dataset(quads);
}

/** Every rdf:type of a node, as IRIs. */
export function typesOf(dataset: Dataset, iri: string): string[] {
  return [...dataset.match(rdf.namedNode(iri), rdf.ns.rdf.type, null)].map((quad) => quad.object.value);
}

/** Subjects typed with a class IRI. */
export function instancesOf(dataset: Dataset, classIri: string): string[] {
  return [...dataset.match(null, rdf.ns.rdf.type, rdf.namedNode(classIri))].map((quad) => quad.subject.value);
}
