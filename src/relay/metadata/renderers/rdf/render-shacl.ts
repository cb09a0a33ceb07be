// SHACL shapes (JSON-LD) of entity records: one node shape per entity, one property shape per field (datatype,
// cardinality, codelist values with the codelist embedded as a SKOS scheme) and per relationship.
import type {
  EntityMeta,
  FieldMeta,
  MetadataFieldType,
  MetadataModel,
  RelationshipMeta,
} from '../../model/metadata-model.ts';
import { codelistScheme, defaultLanguage } from './common-nodes.ts';
import { contextOf, document, type Node, optional, type Prefix, ref, texts } from './json-ld.ts';

export const SHACL_PREFIXES: readonly Prefix[] = ['dct', 'rdfs', 'sh', 'skos', 'xsd'];

const DATATYPES: Readonly<Record<MetadataFieldType, string>> = {
  string: 'xsd:string',
  code: 'xsd:string',
  number: 'xsd:decimal',
  integer: 'xsd:integer',
  boolean: 'xsd:boolean',
  date: 'xsd:date',
  timestamp: 'xsd:dateTime',
};

/** The shapes of every visible entity. */
export function renderShacl(model: MetadataModel) {
  return shapesDocument(
    model,
    model.datasets.flatMap((dataset) => dataset.entities),
  );
}

/** The shapes of one entity, with the codelists its fields use. */
export function renderEntityShacl(model: MetadataModel, entity: EntityMeta) {
  return shapesDocument(model, [entity]);
}

/** The IRI of an entity's node shape (an identifier: the same in relay and static documents). */
export function entityShapeIri(model: MetadataModel, entity: EntityMeta): string {
  return `${entityNamespace(model, entity)}shape`;
}

/**
 * The predicate a field or relationship is written with in RDF: its concept IRI when no other member of the
 * entity has it, else an IRI of its own under the entity. A field's concept is weighed against the other fields
 * only (a relationship sharing it takes its own IRI), so a field gets the same predicate in every view and none
 * betrays a relationship the caller cannot see; a relationship's, against the fields and the visible relationships.
 */
export function memberPredicate(
  model: MetadataModel,
  entity: EntityMeta,
  member: FieldMeta | RelationshipMeta,
): string {
  const isField = 'concepts' in member;
  const concept = isField ? member.concepts[0] : member.conceptUri;
  const fieldConcepts = entity.fields.map((field) => field.concepts[0]);
  const concepts = isField
    ? fieldConcepts
    : [...fieldConcepts, ...entity.relationships.map((rel) => rel.conceptUri)];
  const unique = concept !== undefined && concepts.filter((other) => other === concept).length === 1;
  return unique ? concept : `${entityNamespace(model, entity)}${member.name}`;
}

function entityNamespace(model: MetadataModel, entity: EntityMeta): string {
  return `${model.catalog.baseUrl}/metadata/datasets/${entity.datasetId}/entities/${entity.name}#`;
}

function shapesDocument(model: MetadataModel, entities: readonly EntityMeta[]) {
  const used = new Set(entities.flatMap((entity) => entity.fields.flatMap((field) => field.codelist ?? [])));
  const language = defaultLanguage(model);
  return document(contextOf(...SHACL_PREFIXES), [
    ...entities.map((entity) => nodeShape(model, entity)),
    ...model.codelists
      .filter((codelist) => used.has(codelist.id))
      .map((codelist) => codelistScheme(codelist, language)),
  ]);
}

function nodeShape(model: MetadataModel, entity: EntityMeta): Node {
  const language = defaultLanguage(model);
  const targets = new Map(
    model.datasets
      .find((dataset) => dataset.id === entity.datasetId)
      ?.entities.map((candidate) => [candidate.name, candidate.conceptUri]) ?? [],
  );
  return {
    '@id': entityShapeIri(model, entity),
    '@type': 'sh:NodeShape',
    'dct:identifier': `${entity.datasetId}/${entity.name}`,
    'rdfs:label': texts(entity.title, language),
    ...optional('rdfs:comment', entity.description && texts(entity.description, language)),
    ...optional('sh:targetClass', entity.conceptUri && ref(entity.conceptUri)),
    'sh:property': [
      ...entity.fields.map((field, order) => fieldShape(model, entity, field, order)),
      ...entity.relationships.map((rel, i) =>
        relationshipShape(model, entity, rel, entity.fields.length + i, targets.get(rel.target)),
      ),
    ],
  };
}

function fieldShape(model: MetadataModel, entity: EntityMeta, field: FieldMeta, order: number): Node {
  const codes = model.codelists.find((codelist) => codelist.id === field.codelist);
  return {
    'sh:path': ref(memberPredicate(model, entity, field)),
    'sh:name': field.name,
    ...optional('sh:description', field.description?.text),
    'sh:order': order,
    'sh:datatype': ref(DATATYPES[field.type]),
    // A null is no triple: a field that may be null (even when its key is required) cannot demand a value.
    ...(field.required && !field.nullable ? { 'sh:minCount': 1 } : {}),
    'sh:maxCount': 1,
    ...(codes === undefined
      ? {}
      : {
          'sh:in': { '@list': codes.concepts.map((concept) => concept.code) },
          'rdfs:seeAlso': ref(codes.schemeIri),
        }),
  };
}

function relationshipShape(
  model: MetadataModel,
  entity: EntityMeta,
  rel: RelationshipMeta,
  order: number,
  targetClass: string | undefined,
): Node {
  return {
    'sh:path': ref(memberPredicate(model, entity, rel)),
    'sh:name': rel.name,
    'sh:order': order,
    'sh:nodeKind': ref('sh:IRI'),
    ...optional('sh:class', targetClass && ref(targetClass)),
    // No minimum: records carry the foreign key (a field with its own shape), not always the link itself.
    ...(rel.cardinality === 'many' ? {} : { 'sh:maxCount': 1 }),
  };
}
