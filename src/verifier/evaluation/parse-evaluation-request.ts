// Parses a `POST /v1/evaluations` body (verifier contract §2.5): unknown members and malformed values are 400s.
import { z } from 'zod';
import { DISCLOSURE_LEVELS, type DisclosureLevel } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';

/** Bytes a value may take in UTF-8: percent-encoded into a relay's URL it stays well under its 8 KiB limit. */
const MAX_VALUE_BYTES = 1024;
/** A UTF-16 surrogate not paired: JSON can carry it (`"\ud800"`), UTF-8 and a URL cannot. */
const LONE_SURROGATE = /\p{Cs}/u;
const NOT_WELL_FORMED = { message: 'Invalid string: a lone UTF-16 surrogate is not text' };
const wellFormed = (value: string) => !LONE_SURROGATE.test(value);
/**
 * Text of the target: what identifies a subject, is sent to a source or keyed into its handle. A lone surrogate is
 * refused, not replaced: two values differing only by one would be looked up as the same `U+FFFD` but get
 * different handles.
 */
const name = (max: number, min?: number) =>
  (min === undefined ? z.string() : z.string().min(min)).max(max).refine(wellFormed, NOT_WELL_FORMED);
const text = name(MAX_VALUE_BYTES, 1).refine((value) => Buffer.byteLength(value, 'utf8') <= MAX_VALUE_BYTES, {
  message: `Too big: expected at most ${MAX_VALUE_BYTES} bytes in UTF-8`,
});
/** Attributes a target may carry (lookup inputs and rule inputs). */
const MAX_ATTRIBUTES = 32;
const TOO_MANY_ATTRIBUTES = `Too big: expected at most ${MAX_ATTRIBUTES} attributes`;
/**
 * A number attribute. A whole number past 2^53 - 1 has already been rounded by the JSON parse (12345678901234567
 * arrives as 12345678901234568): looked up or keyed as it arrived, it would name another subject than the one
 * sent, so it is refused (I-JSON, RFC 7493 section 2.2); such identifiers travel as text.
 */
const attributeNumber = z
  .number()
  .refine((value) => !Number.isInteger(value) || Number.isSafeInteger(value), {
    message: 'Too big: a whole number must lie within ±(2^53 - 1); send a larger one as text',
  });

const identifier = z.strictObject({
  scheme: name(128, 1),
  value: text,
  issuer: text.optional(),
  country: name(3, 2).optional(),
});

export const targetSchema = z.strictObject({
  type: name(128, 1),
  id: text.optional(),
  identifiers: z.array(identifier).max(20).optional(),
  attributes: z
    .preprocess(
      // Counted before any member is checked: a body within its size limit holds tens of thousands of them, and
      // checking each before refusing their number held the event loop for seconds.
      (value, ctx) => {
        if (isObject(value) && Object.keys(value).length > MAX_ATTRIBUTES) {
          ctx.issues.push({ code: 'custom', input: value, message: TOO_MANY_ATTRIBUTES });
        }
        return value;
      },
      z
        .record(
          z.string().regex(/^[A-Za-z0-9_]{1,64}$/),
          z.union([text, attributeNumber, z.boolean(), z.null()]),
        )
        .meta({ maxProperties: MAX_ATTRIBUTES }),
    )
    .optional(),
  profile: name(128).optional(),
});

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A claim as a request names it. Neither form fitting, the union alone would say only "Invalid input". */
export const claimRefSchema = z.union(
  [
    z.string().min(1).max(128),
    z.strictObject({ id: z.string().min(1).max(128), version: z.string().min(1).max(64).optional() }),
  ],
  { error: 'Invalid input: expected a claim id, or {"id": ..., "version": ...} with both as text' },
);

/** The whole body; the runtime OpenAPI document describes it from this schema. */
export const evaluationBodySchema = z.strictObject({
  target: targetSchema,
  claims: z.array(claimRefSchema).min(1).max(32),
  disclosure: z.enum(DISCLOSURE_LEVELS).optional(),
  format: z.string().min(1).max(256).optional(),
  purpose: z.string().min(1).max(512).optional(),
});

export interface EvaluationTarget {
  readonly type: string;
  readonly id: string | undefined;
  /** Scheme -> value; a scheme appears once (and no two differ only by case or compatibility form). */
  readonly identifiers: ReadonlyMap<string, string>;
  /** Scheme -> the issuer and country sent with its identifier, for those sent with either. */
  readonly identifierQualifiers?: ReadonlyMap<string, IdentifierQualifiers>;
  readonly attributes: Readonly<Record<string, string | number | boolean | null>>;
  /** The profile the caller sent, echoed in `target_ref`: not identity, so it never changes the handle. */
  readonly profile?: string | undefined;
}

export interface IdentifierQualifiers {
  readonly issuer?: string | undefined;
  readonly country?: string | undefined;
}

export interface EvaluationRequest {
  readonly target: EvaluationTarget;
  readonly claims: readonly { readonly id: string; readonly version: string | undefined }[];
  readonly disclosure: DisclosureLevel | undefined;
  readonly format: string | undefined;
  readonly purpose: string | undefined;
}

/** Parses with a schema, or throws 400 `request.invalid` naming the first problems and where they are. */
export function parseOrReject<T>(schema: z.ZodType<T>, raw: unknown, prefix: (string | number)[] = []): T {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  const issues = result.error.issues.slice(0, 10).map((issue) => ({
    path: [...prefix, ...issue.path].map((segment) => clip(String(segment), MAX_ECHOED_NAME)).join('.'),
    message: issueMessage(issue),
  }));
  const first = issues[0];
  const where = first && first.path !== '' ? `\`${first.path}\`: ` : '';
  throw verifierProblem('request.invalid', `${where}${first?.message ?? 'invalid body'}`, {
    extras: { errors: issues },
  });
}

/** Characters of a member name or record key a problem echoes; the body may hold thousands of them, each long. */
const MAX_ECHOED_NAME = 64;
/** Unknown member names a problem lists. */
const MAX_ECHOED_KEYS = 3;

/** The issue's message, naming at most a few unknown members, each clipped: a refusal never echoes the body back. */
function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return clip(issue.message, 4 * MAX_ECHOED_NAME);
  const named = issue.keys.slice(0, MAX_ECHOED_KEYS).map((key) => `"${clip(key, MAX_ECHOED_NAME)}"`);
  const more = issue.keys.length - named.length;
  return `Unrecognized key${issue.keys.length === 1 ? '' : 's'}: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  // Never between the two halves of a surrogate pair, which would leave a lone one in the answer.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

/** A schema-valid target as evaluation input: each identifier scheme once, and something to look it up by. */
export function toEvaluationTarget(parsed: z.infer<typeof targetSchema>): EvaluationTarget {
  const identifiers = new Map<string, string>();
  const qualifiers = new Map<string, IdentifierQualifiers>();
  // Folded scheme -> scheme as sent: `national_id` beside `NATIONAL_ID` would leave a reader (an auditor, a proxy,
  // the caller) to guess which of the two values the lookup used.
  const folded = new Map<string, string>();
  for (const entry of parsed.identifiers ?? []) {
    if (identifiers.has(entry.scheme)) {
      throw verifierProblem('request.invalid', `target identifier scheme \`${entry.scheme}\` appears twice`);
    }
    const key = entry.scheme.normalize('NFKC').toLowerCase();
    const earlier = folded.get(key);
    if (earlier !== undefined) {
      throw verifierProblem(
        'request.invalid',
        `target identifier schemes \`${earlier}\` and \`${entry.scheme}\` differ only by case or form`,
      );
    }
    folded.set(key, entry.scheme);
    identifiers.set(entry.scheme, entry.value);
    if (entry.issuer !== undefined || entry.country !== undefined) {
      qualifiers.set(entry.scheme, { issuer: entry.issuer, country: entry.country });
    }
  }
  const attributes = parsed.attributes ?? {};
  if (parsed.id === undefined && identifiers.size === 0 && Object.keys(attributes).length === 0) {
    throw verifierProblem(
      'target.attributes_insufficient',
      'The target needs an id, an identifier or attributes.',
    );
  }
  return {
    type: parsed.type,
    id: parsed.id,
    identifiers,
    ...(qualifiers.size > 0 && { identifierQualifiers: qualifiers }),
    attributes,
    ...(parsed.profile !== undefined && { profile: parsed.profile }),
  };
}

export function toClaimRefs(refs: readonly z.infer<typeof claimRefSchema>[]): EvaluationRequest['claims'] {
  return refs.map((ref) =>
    typeof ref === 'string' ? { id: ref, version: undefined } : { id: ref.id, version: ref.version },
  );
}

export function parseEvaluationRequest(raw: unknown): EvaluationRequest {
  const parsed = parseOrReject(evaluationBodySchema, raw);
  return {
    target: toEvaluationTarget(parsed.target),
    claims: toClaimRefs(parsed.claims),
    disclosure: parsed.disclosure,
    format: parsed.format,
    purpose: parsed.purpose,
  };
}

/**
 * The request value a binding looks its subject up by, or undefined when the request did not send it. A blank one
 * (only white space) counts as not sent: no record is keyed by it, and a source refuses it as a filter value.
 */
export function lookupValue(target: EvaluationTarget, input: string): string | undefined {
  return notBlank(rawLookupValue(target, input));
}

function rawLookupValue(target: EvaluationTarget, input: string): string | undefined {
  if (input === 'target.id') return target.id;
  if (input.startsWith('target.identifiers.'))
    return target.identifiers.get(input.slice('target.identifiers.'.length));
  if (input.startsWith('target.attributes.')) {
    const name = input.slice('target.attributes.'.length);
    const value = Object.hasOwn(target.attributes, name) ? target.attributes[name] : undefined;
    return value === undefined || value === null ? undefined : String(value);
  }
  return undefined;
}

const BLANK = /^\s*$/;

function notBlank(value: string | undefined): string | undefined {
  return value === undefined || BLANK.test(value) ? undefined : value;
}
