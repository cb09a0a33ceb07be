// Names a caller sends (claim ids, a target's type, its identifier schemes) as the audit chain keeps them: those the
// configuration declares as they are, any other as a keyed hash. A name is free text to the caller, who may put a
// person's identifier in it by mistake, and the audit file never holds identifiers.
import { keyedHash } from '../../platform/audit/keyed-hash.ts';
import type { ClaimCatalog } from '../claims/build-claim-catalog.ts';

interface KnownNames {
  readonly types: ReadonlySet<string>;
  readonly schemes: ReadonlySet<string>;
}

const IDENTIFIER_INPUT = 'target.identifiers.';
const known = new WeakMap<ClaimCatalog, KnownNames>();

function knownNames(catalog: ClaimCatalog): KnownNames {
  let names = known.get(catalog);
  if (names === undefined) {
    const types = new Set(catalog.ordered.map((claim) => claim.config.subject_type));
    const schemes = new Set(
      catalog.ordered.flatMap((claim) =>
        claim.targetInputs
          .filter((input) => input.startsWith(IDENTIFIER_INPUT))
          .map((input) => input.slice(IDENTIFIER_INPUT.length)),
      ),
    );
    names = { types, schemes };
    known.set(catalog, names);
  }
  return names;
}

function audited(secret: Buffer, domain: string, name: string, isKnown: boolean): string {
  return isKnown ? name : keyedHash(secret, domain, name);
}

export function auditedClaimIds(catalog: ClaimCatalog, secret: Buffer, ids: readonly string[]): string[] {
  return ids.map((id) => audited(secret, 'claim_id', id, catalog.claims.has(id)));
}

export function auditedTargetType(catalog: ClaimCatalog, secret: Buffer, type: string): string {
  return audited(secret, 'target_type', type, knownNames(catalog).types.has(type));
}

/** Sorted as the audit event lists them: known names first by text, hashes after. */
export function auditedSchemes(catalog: ClaimCatalog, secret: Buffer, schemes: Iterable<string>): string[] {
  const { schemes: declared } = knownNames(catalog);
  return [...schemes]
    .map((scheme) => audited(secret, 'identifier_scheme', scheme, declared.has(scheme)))
    .sort();
}
