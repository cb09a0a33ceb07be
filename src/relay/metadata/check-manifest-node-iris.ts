// IRIs that name a node of the RDF documents must be distinct: the renderers merge nodes by `@id`, so two
// datasets (or a dataset and a service) sharing an IRI would silently become one. Agents are left out: one
// organisation may publish, own and be the competent authority of several things.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { expandIri } from '../catalog/expand-iri.ts';
import { manifestIssue as issue } from './manifest-issue.ts';
import type { Manifest } from './manifest-schema.ts';

export function checkNodeIris(manifest: Manifest): ConfigIssue[] {
  const expand = (value: string) => expandIri(value, manifest.vocabularies) as string;
  const baseUrl = manifest.catalog.base_url.replace(/(?<!\/)\/+$/, '');
  const nodes: [path: string, iri: string][] = [];
  manifest.datasets.forEach((dataset, d) => {
    // A dataset without an IRI is named under the base URL, which a declared IRI could also name.
    nodes.push([`datasets.${d}.iri`, dataset.iri ?? `${baseUrl}/metadata/datasets/${dataset.id}`]);
    if (dataset.policy?.uid !== undefined) nodes.push([`datasets.${d}.policy.uid`, dataset.policy.uid]);
    dataset.evidence_offerings.forEach((offering, o) => {
      nodes.push([`datasets.${d}.evidence_offerings.${o}.iri`, offering.iri]);
    });
  });
  const add = (kind: string, items: readonly { iri?: string | undefined }[], member = 'iri') => {
    items.forEach((item, i) => {
      if (item.iri !== undefined) nodes.push([`${kind}.${i}.${member}`, item.iri]);
    });
  };
  add('public_services', manifest.public_services);
  add('data_services', manifest.data_services);
  add('requirements', manifest.requirements);
  add('evidence_types', manifest.evidence_types);
  add('forms', manifest.forms);
  add(
    'codelists',
    manifest.codelists.map((codelist) => ({ iri: codelist.scheme_iri })),
    'scheme_iri',
  );
  const seen = new Map<string, string>();
  const issues: ConfigIssue[] = [];
  for (const [path, value] of nodes) {
    const iri = expand(value);
    const first = seen.get(iri);
    if (first === undefined) seen.set(iri, path);
    else
      issues.push(
        issue(path, `\`${iri}\` already names manifest.${first}: each node needs an IRI of its own`),
      );
  }
  return issues;
}
