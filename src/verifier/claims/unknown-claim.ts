// The `claim.not_found` answer for a claim id a request named (in its path or its body): said back only when it is
// made of the characters claim ids are made of, never as markup, control or bidi characters a client might render.
import { quoted, suggestion } from '../../platform/http/quote-client-text.ts';
import { sayableClaimId, verifierProblem } from '../problems.ts';

/** 404 `claim.not_found`; `known` (the ids the caller may see) gives a hint for a misspelt id. */
export function unknownClaim(id: string, known: Iterable<string> = []) {
  const detail = sayableClaimId(id)
    ? `No claim ${quoted(id)} is visible${suggestion(id, known)}.`
    : 'No claim of that id is visible (claim ids match ^[a-z][a-z0-9_.-]*$).';
  return verifierProblem('claim.not_found', detail);
}
