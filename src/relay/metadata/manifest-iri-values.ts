// Every IRI-valued member of a manifest with its path, so one check can verify their vocabulary prefixes.
import type { Manifest } from './manifest-schema.ts';

type Entry = [path: string, value: string];

export function manifestIriValues(manifest: Manifest): Entry[] {
  const out: Entry[] = [];
  const add = (path: string, value: string | undefined) => {
    if (value !== undefined) out.push([path, value]);
  };
  const addAll = (path: string, values: readonly string[]) => {
    values.forEach((value, i) => {
      out.push([`${path}.${i}`, value]);
    });
  };
  const { catalog } = manifest;
  add('catalog.publisher.iri', catalog.publisher.iri);
  add('catalog.publisher.authority_type', catalog.publisher.authority_type);
  add('catalog.publisher.spatial', catalog.publisher.spatial);
  addAll('catalog.conforms_to', catalog.conforms_to);
  add('catalog.spatial_coverage', catalog.spatial_coverage);
  manifest.profiles.forEach((profile, p) => {
    add(`profiles.${p}.conforms_to`, profile.conforms_to);
  });
  manifest.authorities.forEach((authority, a) => {
    add(`authorities.${a}.iri`, authority.iri);
    add(`authorities.${a}.authority_type`, authority.authority_type);
    add(`authorities.${a}.spatial`, authority.spatial);
  });
  manifest.requirements.forEach((requirement, r) => {
    add(`requirements.${r}.iri`, requirement.iri);
    add(`requirements.${r}.rdf_type`, requirement.rdf_type);
  });
  manifest.evidence_types.forEach((type, t) => {
    add(`evidence_types.${t}.iri`, type.iri);
    addAll(`evidence_types.${t}.information_concepts`, type.information_concepts);
  });
  manifest.public_services.forEach((service, s) => {
    add(`public_services.${s}.iri`, service.iri);
    add(`public_services.${s}.jurisdiction`, service.jurisdiction);
    service.channels.forEach((channel, c) => {
      add(`public_services.${s}.channels.${c}.iri`, channel.iri);
      add(`public_services.${s}.channels.${c}.kind`, channel.kind);
    });
  });
  manifest.data_services.forEach((service, s) => {
    add(`data_services.${s}.iri`, service.iri);
    add(`data_services.${s}.conforms_to`, service.conforms_to);
  });
  manifest.forms.forEach((form, f) => {
    add(`forms.${f}.iri`, form.iri);
    form.fields.forEach((field, i) => {
      add(`forms.${f}.fields.${i}.concept`, field.concept);
    });
    form.sections.forEach((section, s) => {
      section.fields.forEach((field, i) => {
        add(`forms.${f}.sections.${s}.fields.${i}.concept`, field.concept);
      });
    });
  });
  manifest.codelists.forEach((codelist, c) => {
    add(`codelists.${c}.scheme_iri`, codelist.scheme_iri);
    codelist.concepts.forEach((concept, k) => {
      add(`codelists.${c}.concepts.${k}.iri`, concept.iri);
    });
  });
  manifest.datasets.forEach((dataset, d) => {
    datasetIris(dataset, `datasets.${d}`, add, addAll);
  });
  return out;
}

function datasetIris(
  dataset: Manifest['datasets'][number],
  base: string,
  add: (path: string, value: string | undefined) => void,
  addAll: (path: string, values: readonly string[]) => void,
): void {
  add(`${base}.iri`, dataset.iri);
  add(`${base}.publisher.iri`, dataset.publisher?.iri);
  add(`${base}.publisher.authority_type`, dataset.publisher?.authority_type);
  addAll(`${base}.conforms_to`, dataset.conforms_to);
  dataset.applicable_legislation.forEach((entry, index) => {
    add(`${base}.applicable_legislation.${index}`, typeof entry === 'string' ? entry : entry.iri);
  });
  add(`${base}.spatial_coverage`, dataset.spatial_coverage);
  add(`${base}.status`, dataset.status);
  addAll(`${base}.themes`, dataset.themes);
  const policy = dataset.policy;
  if (policy) {
    add(`${base}.policy.uid`, policy.uid);
    add(`${base}.policy.assigner`, policy.assigner);
    addAll(`${base}.policy.profile`, policy.profile);
    for (const kind of ['permissions', 'prohibitions'] as const) {
      policy[kind].forEach((rule, r) => {
        const rules = [rule, ...rule.duties];
        rules.forEach((each, i) => {
          const at = i === 0 ? `${base}.policy.${kind}.${r}` : `${base}.policy.${kind}.${r}.duties.${i - 1}`;
          add(`${at}.target`, each.target);
          add(`${at}.assignee`, each.assignee);
          each.constraints.forEach((constraint, c) => {
            if ('iri' in constraint.right_operand)
              add(`${at}.constraints.${c}.right_operand.iri`, constraint.right_operand.iri);
          });
        });
      });
    }
  }
  dataset.entities.forEach((entity, e) => {
    const at = `${base}.entities.${e}`;
    add(`${at}.concept_uri`, entity.concept_uri);
    entity.fields.forEach((field, f) => {
      add(`${at}.fields.${f}.concept_uri`, field.concept_uri);
      addAll(`${at}.fields.${f}.concepts`, field.concepts);
    });
    entity.relationships.forEach((rel, r) => {
      add(`${at}.relationships.${r}.concept_uri`, rel.concept_uri);
    });
  });
  dataset.evidence_offerings.forEach((offering, o) => {
    const at = `${base}.evidence_offerings.${o}`;
    add(`${at}.iri`, offering.iri);
    add(`${at}.issuing_authority.iri`, offering.issuing_authority.iri);
    add(`${at}.access.conforms_to`, offering.access.conforms_to);
    addAll(`${at}.policy.purpose`, offering.policy.purpose);
  });
}
