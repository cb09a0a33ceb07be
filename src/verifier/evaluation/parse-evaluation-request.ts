// Parses a `POST /v1/evaluations` body (verifier contract §2.5): unknown members and malformed values are 400s.
import { z } from 'zod';
import { DISCLOSURE_LEVELS, type DisclosureLevel } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';

const text = z.string().min(1).max(1024);

const identifier = z.strictObject({
  scheme: z.string().min(1).max(128),
  value: text,
  issuer: text.optional(),
  country: z.string().min(2).max(3).optional(),
});

const target = z.strictObject({
  type: z.string().min(1).max(128),
  id: text.optional(),
  identifiers: z.array(identifier).max(20).optional(),
  attributes: z
    .record(z.string().regex(/^[A-Za-z0-9_]{1,64}$/), z.union([text, z.number(), z.boolean(), z.null()]))
    .optional(),
  profile: z.string().max(128).optional(),
});

const claimRef = z.union([
  z.string().min(1).max(128),
  z.strictObject({ id: z.string().min(1).max(128), version: z.string().min(1).max(64).optional() }),
]);

const body = z.strictObject({
  target,
  claims: z.array(claimRef).min(1).max(32),
  disclosure: z.enum(DISCLOSURE_LEVELS).optional(),
  format: z.string().min(1).max(256).optional(),
  purpose: z.string().min(1).max(512).optional(),
});

export interface EvaluationTarget {
  readonly type: string;
  readonly id: string | undefined;
  /** Scheme -> value; a scheme appears once. */
  readonly identifiers: ReadonlyMap<string, string>;
  readonly attributes: Readonly<Record<string, string | number | boolean | null>>;
}

export interface EvaluationRequest {
  readonly target: EvaluationTarget;
  readonly claims: readonly { readonly id: string; readonly version: string | undefined }[];
  readonly disclosure: DisclosureLevel | undefined;
  readonly format: string | undefined;
  readonly purpose: string | undefined;
}

export function parseEvaluationRequest(raw: unknown): EvaluationRequest {
  const result = body.safeParse(raw);
  if (!result.success) {
    const first = result.error.issues[0];
    const where = first && first.path.length > 0 ? `\`${first.path.join('.')}\`: ` : '';
    throw verifierProblem('request.invalid', `${where}${first?.message ?? 'invalid body'}`, {
      extras: {
        errors: result.error.issues
          .slice(0, 10)
          .map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
      },
    });
  }
  const parsed = result.data;
  const identifiers = new Map<string, string>();
  for (const entry of parsed.target.identifiers ?? []) {
    if (identifiers.has(entry.scheme)) {
      throw verifierProblem('request.invalid', `target identifier scheme \`${entry.scheme}\` appears twice`);
    }
    identifiers.set(entry.scheme, entry.value);
  }
  const attributes = parsed.target.attributes ?? {};
  if (parsed.target.id === undefined && identifiers.size === 0 && Object.keys(attributes).length === 0) {
    throw verifierProblem(
      'target.attributes_insufficient',
      'The target needs an id, an identifier or attributes.',
    );
  }
  return {
    target: { type: parsed.target.type, id: parsed.target.id, identifiers, attributes },
    claims: parsed.claims.map((ref) =>
      typeof ref === 'string' ? { id: ref, version: undefined } : { id: ref.id, version: ref.version },
    ),
    disclosure: parsed.disclosure,
    format: parsed.format,
    purpose: parsed.purpose,
  };
}

/** The request value a binding looks its subject up by, or undefined when the request did not send it. */
export function lookupValue(target: EvaluationTarget, input: string): string | undefined {
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
