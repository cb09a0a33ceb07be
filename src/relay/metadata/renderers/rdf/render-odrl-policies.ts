// ODRL 2.2 Offers (JSON-LD) of the datasets that declare a policy: assigner and target on the policy, each rule
// with its action, constraints and duties. Bare ODRL terms (`use`, `purpose`, `isA`) are ODRL vocabulary IRIs.
import { expandIri } from '../../../catalog/expand-iri.ts';
import type {
  DatasetMeta,
  MetadataModel,
  OdrlConstraint,
  OdrlDuty,
  OdrlRule,
} from '../../model/metadata-model.ts';
import { agentId } from './common-nodes.ts';
import { compact, contextOf, document, type Node, optional, type Prefix, ref } from './json-ld.ts';

export const ODRL_PREFIXES: readonly Prefix[] = ['dct', 'odrl', 'xsd'];

/** Every visible dataset's Offer; an empty graph when none declares a policy. */
export function renderPolicies(model: MetadataModel) {
  return document(
    contextOf(...ODRL_PREFIXES),
    model.datasets.flatMap((dataset) => (dataset.policy ? [offerNode(model, dataset)] : [])),
  );
}

/** One dataset's Offer as a document of its own; undefined when the dataset declares no policy. */
export function renderDatasetPolicy(model: MetadataModel, dataset: DatasetMeta) {
  if (!dataset.policy) return undefined;
  return { '@context': contextOf(...ODRL_PREFIXES), ...offerNode(model, dataset) };
}

/** The policy `uid`, or an IRI under the catalog when the manifest gives none. */
export function datasetPolicyIri(model: MetadataModel, dataset: DatasetMeta): string {
  return dataset.policy?.uid ?? `${model.catalog.baseUrl}/metadata/datasets/${dataset.id}/policy`;
}

function offerNode(model: MetadataModel, dataset: DatasetMeta): Node {
  const policy = dataset.policy;
  if (!policy) throw new Error(`dataset ${dataset.id} declares no policy`);
  const term = (value: string) => odrlIri(value, model.vocabularies);
  // An Offer names its assigner: the declared one, else whoever publishes the dataset.
  const assigner = policy.assigner ?? agentId(dataset.publisher ?? model.catalog.publisher);
  return {
    '@id': datasetPolicyIri(model, dataset),
    '@type': 'odrl:Offer',
    ...optional('odrl:profile', policy.profiles.map(ref)),
    'odrl:assigner': ref(assigner),
    'odrl:target': ref(dataset.iri),
    ...optional(
      'odrl:permission',
      policy.permissions.map((rule) => ruleNode(rule, term)),
    ),
    ...optional(
      'odrl:prohibition',
      policy.prohibitions.map((rule) => ruleNode(rule, term)),
    ),
  };
}

type Expand = (value: string) => string;

function ruleNode(rule: OdrlRule | OdrlDuty, term: Expand): Node {
  return {
    'odrl:action': ref(term(rule.action)),
    ...optional('odrl:target', rule.target && ref(rule.target)),
    ...optional('odrl:assignee', rule.assignee && ref(rule.assignee)),
    ...optional(
      'odrl:constraint',
      rule.constraints.map((constraint) => constraintNode(constraint, term)),
    ),
    ...optional('odrl:duty', 'duties' in rule ? rule.duties.map((duty) => ruleNode(duty, term)) : []),
  };
}

function constraintNode(constraint: OdrlConstraint, term: Expand): Node {
  const right = constraint.rightOperand;
  return {
    'odrl:leftOperand': ref(term(constraint.leftOperand)),
    'odrl:operator': ref(term(constraint.operator)),
    'odrl:rightOperand':
      'iri' in right
        ? ref(right.iri)
        : constraint.datatype === undefined
          ? right.value
          : // A bare datatype (`date`) is an XSD one, not an ODRL term.
            {
              '@value': right.value,
              '@type': constraint.datatype.includes(':')
                ? term(constraint.datatype)
                : `xsd:${constraint.datatype}`,
            },
  };
}

/** `use` -> odrl:use; compact IRIs with a manifest prefix are expanded; ODRL and XSD IRIs are written compact. */
function odrlIri(value: string, vocabularies: Readonly<Record<string, string>>): string {
  if (!value.includes(':')) return `odrl:${value}`;
  return compact(expandIri(value, vocabularies) ?? value, ODRL_PREFIXES);
}
