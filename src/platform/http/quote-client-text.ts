// Client text named in a problem detail (a parameter, field, measure or format that matched nothing). A query string
// is at most 8 KiB but a query body 1 MiB: quoting it whole would answer a 1 MiB name with a 1 MiB problem, after a
// search for a near name through all of it. Names are quoted in part, and only a name of quotable length gets a hint.
import { hint } from '../config/did-you-mean.ts';

/** The most characters of client text a detail quotes; longer text is cut and ends with `…`. */
export const MAX_QUOTED_LENGTH = 100;

/** `text` in backticks, cut to MAX_QUOTED_LENGTH characters. */
export function quoted(text: string): string {
  return `\`${text.length > MAX_QUOTED_LENGTH ? `${text.slice(0, MAX_QUOTED_LENGTH)}…` : text}\``;
}

/** ` (did you mean …?)` for a misspelt name; nothing for one longer than any detail would quote. */
export function suggestion(text: string, candidates: Iterable<string>): string {
  return text.length > MAX_QUOTED_LENGTH ? '' : hint(text, candidates);
}
