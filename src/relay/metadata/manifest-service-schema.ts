// Manifest building blocks: texts, IRIs and ids, plus the service side (authorities, public services, forms).
import { z } from 'zod';
import { iriSafeUrl } from '../config/schema-parts.ts';

/** A plain string, or a map of language tag to text (`{ en: ..., fr: ... }`). */
export const localizedText = z.union(
  [
    z.string().min(1),
    z
      .record(
        z.string().regex(/^[a-z]{2,3}(-[A-Za-z0-9]{1,8})*$/, 'must be a language tag such as en'),
        z.string(),
      )
      .refine((texts) => Object.keys(texts).length > 0, 'must hold at least one language'),
  ],
  {
    // The library's own message for a union is "Invalid input", whether the text is missing or malformed.
    error: (issue) =>
      issue.input === undefined
        ? 'is required'
        : 'must be a text, or texts by language tag such as { en: ..., fr: ... }',
  },
);

/** An absolute IRI or a compact one (`prefix:term`) over the manifest `vocabularies`. */
export const iri = z.string().min(1);

export const url = z
  .url({ protocol: /^https?$/, error: 'must be an absolute http(s) URL' })
  .refine(...iriSafeUrl);

/** A base URL: links are built by adding a path to it, so a query or a fragment would swallow that path, and
 * credentials would be shown in every published document. */
export const baseUrl = url.refine((value) => {
  if (/[?#]/.test(value)) return false;
  try {
    const parsed = new URL(value);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return true; // reported by `url`
  }
}, 'must have no query, fragment or user name (links add a path to it)');

/** Ids that become URL path segments and file names: no slashes, no leading dot. */
export const safeId = z
  .string()
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must match ^[A-Za-z0-9][A-Za-z0-9_.-]*$');

export const authority = z.strictObject({
  id: safeId,
  iri: iri.optional(),
  name: z.string().min(1),
  authority_type: iri.optional(),
  spatial: iri.optional(),
  country: z
    .string()
    .regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code such as FR')
    .optional(),
});

export const publicService = z.strictObject({
  id: safeId,
  iri,
  title: localizedText,
  description: localizedText.optional(),
  competent_authority: safeId.optional().describe('Id of an `authorities` entry.'),
  jurisdiction: iri.optional(),
  keywords: z.array(z.string().min(1)).default([]),
  holds_requirements: z.array(safeId).default([]),
  produces: z.array(safeId).default([]).describe('Dataset ids.'),
  data_services: z.array(safeId).default([]),
  forms: z.array(safeId).default([]),
  channels: z
    .array(
      z.strictObject({
        id: safeId,
        iri: iri.optional(),
        title: localizedText.optional(),
        kind: iri.optional(),
        access_url: url.optional(),
      }),
    )
    .default([]),
});

export const dataService = z.strictObject({
  id: safeId,
  iri,
  title: localizedText,
  description: localizedText.optional(),
  endpoint_url: url,
  endpoint_description: url.optional(),
  serves_datasets: z.array(safeId).default([]),
  conforms_to: iri.optional(),
});

export const FORM_DATA_TYPES = [
  'xsd:string',
  'xsd:boolean',
  'xsd:integer',
  'xsd:decimal',
  'xsd:date',
  'xsd:dateTime',
] as const;

const formField = z.strictObject({
  id: safeId,
  name: z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'must match ^[A-Za-z][A-Za-z0-9_]*$'),
  label: localizedText,
  description: localizedText.optional(),
  widget_type: z.string().min(1).optional(),
  data_type: z.enum(FORM_DATA_TYPES),
  concept: iri.optional(),
  codelist: safeId.optional(),
  supports_requirement: safeId.optional(),
  required: z.boolean().default(false),
  fulfillment: z
    .strictObject({
      modes: z.array(z.string().min(1)).min(1),
      preferred_mode: z.string().min(1).optional(),
    })
    .optional(),
});

const formSection = z.strictObject({
  id: safeId,
  title: localizedText.optional(),
  description: localizedText.optional(),
  repeatable: z.boolean().default(false),
  min_occurs: z.number().int().min(0).optional(),
  max_occurs: z.number().int().min(1).optional(),
  visible_when: z.strictObject({ field: z.string().min(1), equals: z.string() }).optional(),
  fields: z.array(formField).default([]),
});

export const form = z.strictObject({
  id: safeId,
  iri: iri.optional(),
  title: localizedText,
  description: localizedText.optional(),
  service: safeId.optional().describe('Id of the public service the form starts.'),
  channel: safeId.optional(),
  sections: z.array(formSection).default([]),
  fields: z.array(formField).default([]),
});

export type ManifestLocalizedText = z.infer<typeof localizedText>;
export type ManifestAuthority = z.infer<typeof authority>;
export type ManifestPublicService = z.infer<typeof publicService>;
export type ManifestDataService = z.infer<typeof dataService>;
export type ManifestForm = z.infer<typeof form>;
export type ManifestFormSection = ManifestForm['sections'][number];
export type ManifestFormField = ManifestForm['fields'][number];
