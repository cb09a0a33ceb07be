// The JSON Schema (Draft 2020-12) of a form's submission: plain sections flatten into the top level, repeatable
// sections become arrays of objects; codelist fields get an enum.
import type { MetadataLinks } from '../model/metadata-links.ts';
import type {
  FormDataType,
  FormField,
  FormMeta,
  FormSection,
  MetadataModel,
} from '../model/metadata-model.ts';
import { JSON_SCHEMA_DIALECT } from './metadata-media-types.ts';

const JSON_TYPES: Record<FormDataType, { type: string; format?: string }> = {
  string: { type: 'string' },
  boolean: { type: 'boolean' },
  integer: { type: 'integer' },
  decimal: { type: 'number' },
  date: { type: 'string', format: 'date' },
  dateTime: { type: 'string', format: 'date-time' },
};

type Codes = ReadonlyMap<string, readonly string[]>;

export function renderFormJsonSchema(model: MetadataModel, form: FormMeta, links: MetadataLinks) {
  const codes: Codes = new Map(model.codelists.map((c) => [c.id, c.concepts.map((concept) => concept.code)]));
  const properties: [string, unknown][] = [];
  const required: string[] = [];
  const addFields = (fields: readonly FormField[]) => {
    for (const field of fields) {
      properties.push([field.name, fieldSchema(field, codes)]);
      if (field.required) required.push(field.name);
    }
  };
  addFields(form.fields);
  for (const section of form.sections) {
    if (section.fields.length === 0) continue;
    if (!section.repeatable) {
      addFields(section.fields);
      continue;
    }
    properties.push([section.id, sectionSchema(section, codes)]);
    if ((section.minOccurs ?? 0) > 0) required.push(section.id);
  }
  return {
    $schema: JSON_SCHEMA_DIALECT,
    $id: links.formSchema(form.id),
    title: form.title.text,
    ...(form.description === undefined ? {} : { description: form.description.text }),
    type: 'object',
    properties: Object.fromEntries(properties),
    required,
    additionalProperties: false,
    ...(form.service === undefined ? {} : { 'x-public-service': form.service }),
  };
}

function sectionSchema(section: FormSection, codes: Codes) {
  return {
    ...(section.title === undefined ? {} : { title: section.title.text }),
    type: 'array',
    ...(section.minOccurs === undefined ? {} : { minItems: section.minOccurs }),
    ...(section.maxOccurs === undefined ? {} : { maxItems: section.maxOccurs }),
    items: {
      type: 'object',
      properties: Object.fromEntries(section.fields.map((field) => [field.name, fieldSchema(field, codes)])),
      required: section.fields.filter((field) => field.required).map((field) => field.name),
      additionalProperties: false,
    },
  };
}

function fieldSchema(field: FormField, codes: Codes) {
  const { type, format } = JSON_TYPES[field.dataType];
  const values = field.codelist === undefined ? undefined : codes.get(field.codelist);
  return {
    title: field.label.text,
    ...(field.description === undefined ? {} : { description: field.description.text }),
    type,
    ...(format === undefined ? {} : { format }),
    ...(values === undefined ? {} : { enum: values }),
    ...(field.concept === undefined ? {} : { 'x-concept-uri': field.concept }),
    ...(field.supportsRequirement === undefined
      ? {}
      : { 'x-supports-requirement': field.supportsRequirement }),
    ...(field.widgetType === undefined ? {} : { 'x-widget-type': field.widgetType }),
  };
}
