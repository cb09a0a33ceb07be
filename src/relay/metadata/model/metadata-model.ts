// The frozen metadata model every renderer reads: built from a manifest or from the runtime config, then scoped.
// IRIs here are absolute (compact IRIs are expanded when the model is built); optional facts are `undefined`.

import type { LegalResource } from './legal-resource.ts';

/** A text with its translations; `text` is the English one when present, else the first given. */
export interface LocalizedText {
  readonly text: string;
  /** Language tag -> text; empty when the source gave a plain string (no language known). */
  readonly languages: Readonly<Record<string, string>>;
}

export interface Agent {
  readonly name: string;
  readonly iri: string | undefined;
  /** e.g. http://purl.org/adms/publishertype/NationalAuthority */
  readonly authorityType: string | undefined;
}

export interface CatalogInfo {
  readonly id: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  /** No trailing slash; every URL the renderers emit starts with it. */
  readonly baseUrl: string;
  readonly publisher: Agent;
  readonly participantId: string | undefined;
  readonly conformsTo: readonly string[];
  readonly languages: readonly string[];
  readonly spatialCoverage: string | undefined;
  /** Copied from the manifest; renderers never invent dates. */
  readonly issued: string | undefined;
  readonly modified: string | undefined;
  /** Which standards artefacts to publish (manifest `catalog.standards`; all true from runtime config). */
  readonly standards: { readonly dcat: boolean; readonly shacl: boolean; readonly jsonSchema: boolean };
}

export interface ProfileRef {
  readonly id: string;
  readonly version: string;
}

export interface DeploymentProfile extends ProfileRef {
  readonly title: LocalizedText | undefined;
  readonly description: LocalizedText | undefined;
  readonly conformsTo: string | undefined;
}

export type MetadataFieldType = 'string' | 'number' | 'integer' | 'boolean' | 'date' | 'timestamp' | 'code';

export interface FieldMeta {
  readonly name: string;
  readonly title: LocalizedText | undefined;
  readonly description: LocalizedText | undefined;
  readonly type: MetadataFieldType;
  readonly required: boolean;
  readonly nullable: boolean;
  /** Redacts audit values only; never hides the field. */
  readonly sensitive: boolean;
  /** The field's concept IRIs, `concept_uri` first. */
  readonly concepts: readonly string[];
  /** Id of a model codelist (which may be absent from `MetadataModel.codelists` without a manifest). */
  readonly codelist: string | undefined;
  readonly unit: string | undefined;
  readonly language: string | undefined;
}

export interface RelationshipMeta {
  readonly name: string;
  readonly target: string;
  readonly cardinality: 'one' | 'zero_or_one' | 'many';
  readonly foreignKey: string | undefined;
  readonly conceptUri: string | undefined;
}

export interface EntityMeta {
  readonly datasetId: string;
  readonly name: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly conceptUri: string | undefined;
  readonly primaryKey: string | undefined;
  readonly fields: readonly FieldMeta[];
  readonly relationships: readonly RelationshipMeta[];
}

export interface OdrlConstraint {
  readonly leftOperand: string;
  readonly operator: string;
  readonly rightOperand: { readonly iri: string } | { readonly value: string };
  readonly datatype: string | undefined;
}

export interface OdrlDuty {
  readonly action: string;
  readonly target: string | undefined;
  readonly assignee: string | undefined;
  readonly constraints: readonly OdrlConstraint[];
}

export interface OdrlRule extends OdrlDuty {
  readonly duties: readonly OdrlDuty[];
}

/** An ODRL Offer over the dataset (rendered by the policies renderer). */
export interface DatasetPolicy {
  readonly uid: string | undefined;
  readonly assigner: string | undefined;
  readonly profiles: readonly string[];
  readonly permissions: readonly OdrlRule[];
  readonly prohibitions: readonly OdrlRule[];
}

export interface EvidenceOffering {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly datasetId: string;
  readonly entity: string;
  readonly evidenceType: { readonly id: string; readonly iri: string; readonly name: string };
  readonly issuingAuthority: {
    readonly id: string;
    readonly iri: string | undefined;
    readonly name: string;
    readonly country: string;
  };
  readonly jurisdiction: { readonly country: string; readonly region: string | null };
  readonly levelOfAssurance: string;
  readonly lookupKeys: readonly string[];
  readonly policy: { readonly purpose: readonly string[] };
  readonly procedureContexts: readonly string[];
  readonly requirementIris: readonly string[];
  readonly informationConcepts: readonly string[];
  /** The entity's JSON Schema URL; null when the catalog publishes no JSON Schema (`standards.jsonSchema`). */
  readonly verificationRequestSchemaUrl: string | null;
  readonly access: {
    /** Always the verifier: the relay never verifies. */
    readonly kind: 'verifier';
    readonly ruleset: string;
    readonly endpointUrl: string | null;
    readonly discoveryUrl: string | null;
    readonly conformsTo: string;
  };
}

export interface DatasetMeta {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly owner: string | undefined;
  /** The dataset's own publisher; the catalog publisher applies when undefined. */
  readonly publisher: Agent | undefined;
  readonly sensitivity: string;
  readonly accessRights: 'public' | 'restricted' | 'non_public';
  readonly updateFrequency: string;
  readonly conformsTo: readonly string[];
  readonly applicableLegislation: readonly LegalResource[];
  readonly spatialCoverage: string | undefined;
  /** ADMS status IRI when declared. */
  readonly status: string | undefined;
  readonly keywords: readonly string[];
  readonly themes: readonly string[];
  readonly license: string | undefined;
  readonly issued: string | undefined;
  readonly modified: string | undefined;
  readonly policy: DatasetPolicy | undefined;
  readonly publicServices: readonly {
    readonly id: string;
    readonly title: LocalizedText;
    readonly description: LocalizedText | undefined;
  }[];
  readonly entities: readonly EntityMeta[];
  readonly offerings: readonly EvidenceOffering[];
  /** The relay's declared aggregates over this dataset (none in a model built from a manifest alone). */
  readonly aggregates: readonly AggregateMeta[];
}

/** A declared aggregate, published as one DCAT distribution per representation. */
export interface AggregateMeta {
  readonly id: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  /** The aggregate's GET URL on the relay. */
  readonly url: string;
}

export interface CodelistConcept {
  readonly code: string;
  readonly iri: string;
  readonly label: LocalizedText | undefined;
  readonly definition: LocalizedText | undefined;
}

/** A SKOS concept scheme. */
export interface Codelist {
  readonly id: string;
  readonly schemeIri: string;
  readonly title: LocalizedText | undefined;
  readonly description: LocalizedText | undefined;
  readonly concepts: readonly CodelistConcept[];
}

export interface Requirement {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly rdfType: string | undefined;
  readonly procedureContexts: readonly string[];
  readonly evidenceTypeLists: readonly {
    readonly id: string;
    readonly title: LocalizedText | undefined;
    readonly description: LocalizedText | undefined;
    /** Evidence type ids. */
    readonly evidenceTypes: readonly string[];
  }[];
}

export interface EvidenceType {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  /** Requirement ids, and the same requirements as IRIs. */
  readonly proves: readonly string[];
  readonly requirementIris: readonly string[];
  readonly informationConcepts: readonly string[];
}

export interface Authority extends Agent {
  readonly id: string;
  readonly spatial: string | undefined;
  readonly country: string | undefined;
}

export interface PublicService {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  /** Authority id. */
  readonly competentAuthority: string | undefined;
  readonly jurisdiction: string | undefined;
  readonly keywords: readonly string[];
  /** Ids of requirements, datasets, data services and forms. */
  readonly holdsRequirements: readonly string[];
  readonly produces: readonly string[];
  readonly dataServices: readonly string[];
  readonly forms: readonly string[];
  readonly channels: readonly {
    readonly id: string;
    readonly iri: string | undefined;
    readonly title: LocalizedText | undefined;
    readonly kind: string | undefined;
    readonly accessUrl: string | undefined;
  }[];
}

export interface DataService {
  readonly id: string;
  readonly iri: string;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly endpointUrl: string;
  readonly endpointDescription: string | undefined;
  /** Dataset ids. */
  readonly servesDatasets: readonly string[];
  readonly conformsTo: string | undefined;
}

export type FormDataType = 'string' | 'boolean' | 'integer' | 'decimal' | 'date' | 'dateTime';

export interface FormField {
  readonly id: string;
  readonly name: string;
  readonly label: LocalizedText;
  readonly description: LocalizedText | undefined;
  readonly widgetType: string | undefined;
  /** XSD datatype local name (`xsd:date` -> `date`). */
  readonly dataType: FormDataType;
  readonly concept: string | undefined;
  readonly codelist: string | undefined;
  /** Requirement id. */
  readonly supportsRequirement: string | undefined;
  readonly required: boolean;
  readonly fulfillment:
    | { readonly modes: readonly string[]; readonly preferredMode: string | undefined }
    | undefined;
}

export interface FormSection {
  readonly id: string;
  readonly title: LocalizedText | undefined;
  readonly description: LocalizedText | undefined;
  readonly repeatable: boolean;
  readonly minOccurs: number | undefined;
  readonly maxOccurs: number | undefined;
  readonly visibleWhen: { readonly field: string; readonly equals: string } | undefined;
  readonly fields: readonly FormField[];
}

export interface FormMeta {
  readonly id: string;
  readonly iri: string | undefined;
  readonly title: LocalizedText;
  readonly description: LocalizedText | undefined;
  /** Public service id and channel id. */
  readonly service: string | undefined;
  readonly channel: string | undefined;
  readonly sections: readonly FormSection[];
  readonly fields: readonly FormField[];
}

export interface MetadataModel {
  /** Where the model came from: a `registry-manifest/v1` file, or the relay config when none is configured. */
  readonly source: 'manifest' | 'runtime_config';
  readonly catalog: CatalogInfo;
  /** Prefix -> namespace IRI (manifest `vocabularies`, or the relay config's). */
  readonly vocabularies: Readonly<Record<string, string>>;
  readonly applicationProfiles: readonly ProfileRef[];
  readonly profiles: readonly DeploymentProfile[];
  readonly datasets: readonly DatasetMeta[];
  readonly codelists: readonly Codelist[];
  readonly requirements: readonly Requirement[];
  readonly evidenceTypes: readonly EvidenceType[];
  readonly authorities: readonly Authority[];
  readonly publicServices: readonly PublicService[];
  readonly dataServices: readonly DataService[];
  readonly forms: readonly FormMeta[];
}
