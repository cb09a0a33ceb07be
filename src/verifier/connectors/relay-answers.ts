// What a relay's records answer means for the lookups it served: its envelope checked, one record for a single
// read, and for an `.in` read each value's record, ambiguity or absence where the answer proves it.
import { isUtf8 } from 'node:buffer';
import { namesContentCoding } from '../../platform/http/content-coding.ts';
import { hasDuplicateMember } from '../../platform/http/duplicate-members.ts';
import type { SourceBindingConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import type { HttpResponse } from './create-http-transport.ts';
import { FailureReason, isLastingReason } from './failure-reason.ts';
import { rowFault } from './record-fault.ts';
import { sharedDoubles } from './shared-doubles.ts';
import { type BulkOutcome, type SourceLookup, type SourceRecord, sourceIdOf } from './source-reader.ts';

interface Page {
  readonly rows: readonly Record<string, unknown>[];
  /** `pagination.has_more` when the source sent it. */
  readonly hasMore: boolean | undefined;
}

export function parsePage(response: HttpResponse): Page {
  if (response.status === 400) throw refusal(response);
  if (response.status !== 200) {
    const code =
      response.status >= 300 && response.status < 400
        ? 'source.redirect_refused'
        : `source.http_${response.status}`;
    throw unavailable(code, `the source answered HTTP ${response.status}`);
  }
  if (!isJsonMediaType(response.headers['content-type'])) {
    // A proxy's or portal's page could still parse as JSON: only the relay's JSON answer is read as records.
    throw unavailable('source.invalid_response', 'the source response is not application/json');
  }
  // None is asked for: bytes sent in a coding (gzip, br) are no JSON, even when they happen to parse as some. The
  // bytes received say whether there is a body: an answer's length may be its connection closing.
  if (response.body.length > 0 && namesContentCoding(response.headers)) {
    throw unavailable('source.invalid_response', 'the source response has a content coding');
  }
  // JSON is UTF-8: other bytes would be read as U+FFFD, a value the source never held (`José` in Latin-1).
  if (!isUtf8(response.body)) {
    throw unavailable('source.invalid_response', 'the source response is not UTF-8');
  }
  const text = response.body.toString('utf8');
  let body: { data?: unknown; pagination?: unknown } | null;
  try {
    body = JSON.parse(text);
  } catch {
    throw unavailable('source.invalid_response', 'the source response is not JSON');
  }
  // JSON.parse keeps a key's last value, another reader its first: neither is what the source answered.
  if (hasDuplicateMember(text)) {
    throw unavailable('source.invalid_response', 'the source response holds a key twice in an object');
  }
  const data = body?.data;
  if (
    !Array.isArray(data) ||
    !data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))
  ) {
    throw unavailable('source.invalid_response', 'the source response has no `data` list of records');
  }
  for (const row of data) {
    const fault = rowFault(row);
    if (fault !== undefined)
      throw unavailable('source.invalid_response', `a record in the source response ${fault}`);
  }
  return { rows: data as Record<string, unknown>[], hasMore: hasMoreOf(body?.pagination) };
}

/**
 * `pagination.has_more`, or undefined when not sent. Pagination sent as anything but an object, or `has_more` as
 * anything but a boolean (`"true"`, `1`, null), is refused: read as not said, more records would go unseen.
 */
function hasMoreOf(pagination: unknown): boolean | undefined {
  if (pagination === undefined) return undefined;
  if (pagination === null || typeof pagination !== 'object' || Array.isArray(pagination)) {
    throw unavailable('source.invalid_response', 'the source response has a `pagination` that is no object');
  }
  const hasMore = (pagination as { has_more?: unknown }).has_more;
  if (hasMore === undefined || typeof hasMore === 'boolean') return hasMore;
  throw unavailable('source.invalid_response', 'the source response has a `has_more` that is no boolean');
}

/**
 * `application/json` or a `+json` type, parameters aside, in any letter case. A header sent twice arrives as a list:
 * it does not say what the body is.
 */
function isJsonMediaType(header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const type = header.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[^/\s]+\+json$/.test(type);
}

/**
 * A 400 means "no record" only when the relay refused the lookup value itself (a value it cannot parse as the
 * field): asking again would be refused again, and no record can match it. Any other 400 (an unknown or
 * disallowed field, a missing filter) is a binding that does not fit the relay's schema: an outage of this
 * source, not an answer about the person.
 */
function refusal(response: HttpResponse) {
  if (problemCodeOf(response.body) === 'filter.invalid_value') {
    return notAvailable('source.http_400', 'the source refused the lookup value (HTTP 400)');
  }
  return unavailable('source.request_refused', 'the source refused the request (HTTP 400)');
}

/** A 400 for a value of the list the source cannot read as the field: its single read is refused the same way. */
export function refusesValue(response: HttpResponse): boolean {
  return response.status === 400 && problemCodeOf(response.body) === 'filter.invalid_value';
}

/**
 * A 502 `datasource.row_invalid`: the source (an Ambit relay serving a table live) read a record that does not fit
 * its declared schema. The failure is that record's: a read not reaching it is answered.
 */
export function holdsInvalidRow(response: HttpResponse): boolean {
  return response.status === 502 && problemCodeOf(response.body) === 'datasource.row_invalid';
}

/** The `code` of a problem+json body, or undefined when the body is not one. */
export function problemCodeOf(body: Buffer): string | undefined {
  try {
    const problem: unknown = JSON.parse(body.toString('utf8'));
    if (problem !== null && typeof problem === 'object' && 'code' in problem) {
      return typeof problem.code === 'string' ? problem.code : undefined;
    }
  } catch {
    // Not JSON: nothing says the value was the problem.
  }
  return undefined;
}

export function singleRecord(response: HttpResponse, lookup: SourceLookup): SourceRecord {
  const { rows, hasMore } = parsePage(response);
  // More to come: a record beyond those answered (a relay paging below the limit asked) matches as well.
  if (hasMore === true && rows.length === 0)
    throw unavailable('source.invalid_response', 'the source answered no record, and more to come');
  if (rows.length === 0) throw notAvailable('target.not_found', 'the source holds no record for the target');
  // A source ignoring the filter answers someone else's records: never a claim about this subject, nor a stable
  // "several records" for it (a page of everyone would read as ambiguous).
  const field = lookup.binding.lookup.field;
  if (rows.some((row) => namesAnotherValue(row[field], lookup.value)))
    throw unavailable('source.invalid_response', 'the source answered a record for another lookup value');
  if (rows.length > 1 || hasMore === true)
    throw notAvailable('target.match_ambiguous', 'the source holds several records for the target');
  return { row: rows[0] as Record<string, unknown>, sourceId: sourceIdOf(lookup.binding) };
}

/**
 * Whether a record's lookup field shows it was found for another value than `value`. Text may be the source's
 * spelling of it (case, accents, surrounding blanks, a number, an instant of that day), as for an `.in` answer; a
 * number tells only against a value that spells a number (other text may be the source's code for one); a boolean,
 * or an absent field, may be the source's own form of the value.
 */
function namesAnotherValue(cell: unknown, value: string): boolean {
  if (typeof cell === 'number') {
    const asked = numberOf(value.trim());
    return asked !== undefined && Math.abs(cell) <= Number.MAX_SAFE_INTEGER && cell !== asked;
  }
  if (typeof cell !== 'string' || cell === value) return false;
  return !new Spellings([cell.trim()]).mayRespell(value.trim());
}

/**
 * Matches the rows of an `.in` read back to the values asked for, by the lookup field. A source answers a row's
 * lookup field in its own spelling, and may match values otherwise than by exact text (a timestamp field matches
 * `2020-01-01`, `2020-01-01T00:00:00Z` and `2020-01-01T01:00:00+01:00` alike and answers
 * `2020-01-01T00:00:00.000Z`; a number field `007` and `7`; a case-insensitive one `a1` and `A1`), so a value's
 * rows are found by its text only when it is the spelling the source answers with. Settled:
 * - a value with two or more rows of its text: ambiguous (its single read finds those at least);
 * - when the answer is complete and holds no row for a value not asked (nor a number two values asked read as, see
 *   shared-doubles.ts): a value with one row of its text, unless
 *   another row's text may be another spelling of it (the same but for case or accents, the same number, an instant
 *   within a day): a source comparing so would find both rows for either value;
 * - likewise, a value without a row of its text, as not found, when every row's text is a string and none could be
 *   another spelling of the value (the same but for case or accents, the same number, a day or time within a day
 *   of it). No row at all shows nothing of how the source compares.
 * Any other value is left out, to be read singly.
 */
export function bulkRecords(
  response: HttpResponse,
  binding: SourceBindingConfig,
  values: readonly string[],
): BulkAnswer {
  const { rows, hasMore } = parsePage(response);
  const field = binding.lookup.field;
  const wanted = new Set(values);
  const groups = new Map<string, Record<string, unknown>[]>();
  // A row for a value not asked shows the source matches otherwise than by exact text: a value's rows may then be
  // answered under another text, and only the ambiguities the answer proves are settled.
  let stray = false;
  // Every row's lookup field is text: a number or boolean may have been matched from another spelling.
  let textCells = true;
  const shared = sharedDoubles(values);
  for (const row of rows) {
    const cell = row[field];
    // A number two values asked both read as: the row may be either's, so it settles neither (nor, as a stray, the
    // other values: its true text is unknown).
    if (typeof cell === 'number' && shared.has(cell)) {
      textCells = false;
      stray = true;
      continue;
    }
    const key =
      typeof cell === 'string' || typeof cell === 'number' || typeof cell === 'boolean'
        ? String(cell)
        : undefined;
    if (typeof cell !== 'string') textCells = false;
    if (key === undefined || !wanted.has(key)) {
      stray = true;
      continue;
    }
    const group = groups.get(key);
    if (group) group.push(row);
    else groups.set(key, [row]);
  }
  // The page limit equals the number of values: a fuller page may have been cut short.
  const complete = hasMore === undefined ? rows.length < values.length : !hasMore;
  const sourceId = sourceIdOf(binding);
  const settled = new Map<string, BulkOutcome>();
  // More rows than values, each of a value asked: some value has several records (an ambiguous subject).
  const overfull = hasMore === true && !stray && rows.length >= values.length;
  // The texts answered (each a value asked, as no row is stray), by how a lenient source might compare them.
  let spellings: Spellings | undefined;
  for (const value of values) {
    const group = groups.get(value);
    if (group !== undefined && group.length > 1) {
      settled.set(value, {
        problem: notAvailable('target.match_ambiguous', 'the source holds several records for the target'),
      });
      continue;
    }
    if (!complete || stray) continue;
    spellings ??= new Spellings(groups.keys());
    if (group !== undefined) {
      if (spellings.spelledOnce(value))
        settled.set(value, { record: { row: group[0] as Record<string, unknown>, sourceId } });
    } else if (textCells && rows.length > 0 && !spellings.mayRespell(value)) {
      settled.set(value, {
        problem: notAvailable('target.not_found', 'the source holds no record for the target'),
      });
    }
  }
  return { settled, overfull };
}

/** What an `.in` answer settled, and whether its page was cut short by a value with several records. */
export interface BulkAnswer {
  readonly settled: Map<string, BulkOutcome>;
  readonly overfull: boolean;
}

const DAY_MS = 86_400_000;
// One pass over a digit run (see coerce-cell.ts): the point and its digits are one optional group.
const NUMBER_TEXT = /^[+-]?(\d+(?:\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const DAY_TEXT = /^[+-]?(\d{4,6})-(\d{2})-(\d{2})/;
const INSTANT_TEXT =
  /^[+-]?\d{4,6}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const MARKS = /\p{M}/gu;
const BASE_LETTERS = new Intl.Collator('und', { sensitivity: 'base' });

/**
 * The texts of a bulk answer's lookup field, compared as a lenient source might: without case or accents, as
 * numbers, as days. Each comparison is worked out for the answer's texts on first use only.
 */
class Spellings {
  private readonly texts: readonly string[];
  private folds: Map<string, number> | undefined;
  /** The texts not of printable ASCII only. */
  private unfolded: readonly string[] | undefined;
  private numbers: Set<number> | undefined;
  private days: Set<number> | undefined;
  private numberCounts: Map<number, number> | undefined;
  private instantDays: Map<number, number> | undefined;

  constructor(texts: Iterable<string>) {
    this.texts = [...texts];
  }

  /**
   * No other text answered may be another spelling of this one (answered): the same but for case or accents, the
   * same number, or, both being dates or timestamps, an instant within a day of it.
   */
  spelledOnce(text: string): boolean {
    if ((this.foldCounts().get(fold(text)) ?? 0) > 1 || this.collates(text, true)) return false;
    const number = numberOf(text);
    if (number !== undefined) {
      this.numberCounts ??= countBy(this.texts, numberOf);
      if ((this.numberCounts.get(number) ?? 0) > 1) return false;
    }
    const day = instantDayOf(text);
    if (day !== undefined) {
      // Only whole dates and timestamps: an identifier that merely starts with a date is compared as text.
      this.instantDays ??= countBy(this.texts, instantDayOf);
      const days = this.instantDays;
      const near = (days.get(day - 1) ?? 0) + (days.get(day) ?? 0) + (days.get(day + 1) ?? 0);
      if (near > 1) return false;
    }
    return true;
  }

  /** Whether a text not answered may be another spelling of one answered. */
  mayRespell(text: string): boolean {
    if (this.foldCounts().has(fold(text)) || this.collates(text, false)) return true;
    const number = numberOf(text);
    if (number !== undefined) {
      this.numbers ??= new Set(this.texts.map(numberOf).filter((entry) => entry !== undefined));
      if (this.numbers.has(number)) return true;
    }
    const day = dayOf(text);
    if (day !== undefined) {
      this.days ??= new Set(this.texts.map(dayOf).filter((entry) => entry !== undefined));
      // An offset, or a time read in another zone, moves the day of an instant by one at most.
      if (this.days.has(day - 1) || this.days.has(day) || this.days.has(day + 1)) return true;
    }
    return false;
  }

  /**
   * Whether a text answered (another one, with `others`) is `text` to a source comparing by the root collation at
   * base strength (PostgreSQL's `und-u-ks-level1`): letters `fold` keeps apart (`ø` and `o`, `æ` and `ae`), and
   * characters it ignores (a zero-width space). Two texts of printable ASCII are one there only as `fold` has it.
   */
  private collates(text: string, others: boolean): boolean {
    this.unfolded ??= this.texts.filter((entry) => !PRINTABLE_ASCII.test(entry));
    for (const entry of PRINTABLE_ASCII.test(text) ? this.unfolded : this.texts) {
      if (!(others && entry === text) && BASE_LETTERS.compare(entry, text) === 0) return true;
    }
    return false;
  }

  private foldCounts(): Map<string, number> {
    if (this.folds === undefined) {
      this.folds = new Map();
      for (const text of this.texts) {
        const key = fold(text);
        this.folds.set(key, (this.folds.get(key) ?? 0) + 1);
      }
    }
    return this.folds;
  }
}

/** Text without case or accents (`É`, `é` and `e` alike, `ß` as `ss`). */
function fold(text: string): string {
  if (PRINTABLE_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFKD').replace(MARKS, '').toUpperCase().toLowerCase();
}

/** The number a numeric text spells, when a double holds it exactly enough to compare. */
function numberOf(text: string): number | undefined {
  if (!NUMBER_TEXT.test(text)) return undefined;
  const number = Number(text);
  return Number.isFinite(number) && Math.abs(number) <= Number.MAX_SAFE_INTEGER ? number : undefined;
}

/** How many texts map to each key, texts without one left out. */
function countBy(texts: readonly string[], keyOf: (text: string) => number | undefined): Map<number, number> {
  const counts = new Map<number, number>();
  for (const text of texts) {
    const key = keyOf(text);
    if (key !== undefined) counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/** The day of a text that is a whole date or ISO 8601 timestamp (and nothing more), else undefined. */
function instantDayOf(text: string): number | undefined {
  return INSTANT_TEXT.test(text) ? dayOf(text) : undefined;
}

/** The day (since 1970) a text starting `YYYY-MM-DD` names, as any date or ISO 8601 timestamp does. */
function dayOf(text: string): number | undefined {
  const match = DAY_TEXT.exec(text);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY_MS;
}

export function unavailable(code: string, message: string) {
  // A 503 reads as "retry": say so only when a retry can pass, in `retryable` as a batch item does.
  const lasting = isLastingReason(code);
  const detail = lasting
    ? 'A source cannot answer this read; a retry would fail again.'
    : 'A source is unavailable; retry later.';
  return verifierProblem('source.unavailable', detail, {
    cause: new FailureReason(code, message),
    extras: { retryable: !lasting },
  });
}

/** Not found and ambiguous look the same to the client: no single record backs the claim. */
export function notAvailable(code: string, message: string) {
  return verifierProblem('evidence.not_available', 'No single source record matches the target.', {
    cause: new FailureReason(code, message),
  });
}
