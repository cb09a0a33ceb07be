// The `registry_data_api` connector: one filtered records read per lookup against a relay, with retries,
// a per-connection concurrency limit and the collapse of "none" and "several" into evidence.not_available.
// Connections with `bulk_mode: rda_in_filter` also read many lookups at once with `<field>.in=a,b,...`.
import type { Clock } from '../../platform/clock.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import type { Random } from '../../platform/random.ts';
import type { SourceBindingConfig, SourceConnectionConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import {
  createHttpTransport,
  type HttpResponse,
  type HttpTransport,
  TransportError,
} from './create-http-transport.ts';
import { createSemaphore, PermitTimeout, type Semaphore } from './create-semaphore.ts';
import { FailureReason, failsAgain } from './failure-reason.ts';
import { recordsPath } from './records-path.ts';
import { parseRetryAfter, retryDelay } from './retry-delay.ts';
import {
  type BulkLookup,
  type BulkOutcome,
  type ReadTrace,
  type RequestCounter,
  requestTimedOut,
  type SourceLookup,
  type SourceReader,
  type SourceRecord,
  sourceIdOf,
} from './source-reader.ts';

export interface RelayConnectorDeps {
  readonly clock: Clock;
  readonly random: Random;
  /** Waits between attempts; injected so tests need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly transportFor?: (connection: SourceConnectionConfig) => HttpTransport;
}

interface Connection {
  readonly config: SourceConnectionConfig;
  /** `Bearer <token>`, sent on every request of this connection. */
  readonly authorization: string;
  /** The base URL's path without trailing slashes; record paths are appended to it. */
  readonly basePath: string;
  readonly transport: HttpTransport;
  readonly permits: Semaphore;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createRelayConnector(
  connections: Readonly<Record<string, SourceConnectionConfig>>,
  tokens: ReadonlyMap<string, string>,
  deps: RelayConnectorDeps,
): SourceReader {
  const sleep = deps.sleep ?? defaultSleep;
  const transportFor =
    deps.transportFor ??
    ((config) => createHttpTransport(config.base_url, config, { maxSockets: config.max_in_flight }));
  const open = new Map<string, Connection>();
  for (const [id, config] of Object.entries(connections)) {
    const token = tokens.get(id);
    if (token === undefined) continue;
    open.set(id, {
      config,
      authorization: `Bearer ${token}`,
      basePath: new URL(config.base_url).pathname.replace(/\/+$/, ''),
      transport: transportFor(config),
      permits: createSemaphore(config.max_in_flight),
    });
  }

  const fraction = () => deps.random.bytes(4).readUInt32BE(0) / 2 ** 32;

  /** What one upstream request needs besides the connection. */
  interface Request {
    /** Path and query of the records read. */
    readonly path: string;
    readonly purpose: string;
    readonly requestId: string;
    /** `performance.now()` instant after which no attempt starts; undefined for none. */
    readonly deadline: number | undefined;
    readonly trace: ReadTrace | undefined;
    readonly requests: RequestCounter | undefined;
  }

  /**
   * One attempt: waits for a permit (no later than the deadline), then sends, within `timeout` and the time the
   * request has left. The first attempt that leaves tells the trace; every attempt tells the request counter.
   */
  const attemptOnce = (connection: Connection, lookup: Request, first: boolean): Promise<HttpResponse> =>
    connection.permits.run(() => {
      let timeoutMs = connection.config.timeout;
      let cut = false;
      if (lookup.deadline !== undefined) {
        const left = lookup.deadline - performance.now();
        if (left <= 0) throw requestTimedOut();
        if (left < timeoutMs) {
          timeoutMs = left;
          cut = true;
        }
      }
      if (first) lookup.trace?.readSent();
      lookup.requests?.requestSent();
      const sent = connection.transport.send({
        path: lookup.path,
        headers: {
          authorization: connection.authorization,
          accept: 'application/json',
          'data-purpose': lookup.purpose,
          'x-request-id': lookup.requestId,
          'user-agent': 'ambit-verifier',
        },
        timeoutMs,
      });
      return cut ? sent.catch(deadlineReached) : sent;
    }, lookup.deadline);

  const fetchWithRetries = async (connection: Connection, lookup: Request): Promise<HttpResponse> => {
    const policy = connection.config.retry;
    for (let attempt = 1; ; attempt++) {
      let failure: FailureReason;
      let retryAfter: number | undefined;
      try {
        const response = await attemptOnce(connection, lookup, attempt === 1);
        if (!RETRY_STATUSES.has(response.status)) return response;
        const header = response.headers['retry-after'];
        retryAfter = parseRetryAfter(typeof header === 'string' ? header : undefined, deps.clock.now());
        failure = new FailureReason(
          response.status === 429 ? 'source.rate_limited' : `source.http_${response.status}`,
          `the source answered HTTP ${response.status}`,
        );
      } catch (error) {
        if (error instanceof PermitTimeout) throw requestTimedOut();
        if (!(error instanceof TransportError)) throw error;
        if (error.kind === 'address_denied' || error.kind === 'too_large')
          throw unavailable(`source.${error.kind}`, error.message);
        failure = new FailureReason(`source.${error.kind}`, error.message);
      }
      let delay = retryDelay(policy, attempt, retryAfter, fraction());
      // No time left to wait and try again: the source stayed unavailable for as long as the request could wait.
      if (
        delay !== undefined &&
        lookup.deadline !== undefined &&
        performance.now() + delay >= lookup.deadline
      ) {
        delay = undefined;
      }
      if (delay === undefined) {
        const headers: Record<string, string> =
          retryAfter === undefined ? {} : { 'retry-after': String(Math.ceil(retryAfter / 1000)) };
        throw verifierProblem('source.unavailable', 'A source is unavailable; retry later.', {
          cause: failure,
          headers,
        });
      }
      await sleep(delay);
    }
  };

  /**
   * One `.in` request for `values`. An answer refused as too large or invalid may be the doing of one record: the
   * values are asked again in two halves, and so on down to single values, which are left to single reads (where
   * the record at fault fails its own subject only). Only requests that failed so are split: none is added when
   * nothing fails, and a split costs at most one request per value besides the single reads. `trace` is told by
   * the first request only.
   */
  const bulkRead = async (
    connection: Connection,
    lookup: BulkLookup,
    values: readonly string[],
    trace: ReadTrace | undefined,
  ): Promise<Map<string, BulkOutcome>> => {
    const field = lookup.binding.lookup.field;
    const path = recordsPath(
      connection.basePath,
      lookup.binding,
      `${field}.in`,
      values.join(','),
      values.length,
    );
    try {
      const response = await fetchWithRetries(connection, {
        path,
        purpose: lookup.purpose,
        requestId: lookup.requestId,
        deadline: lookup.deadline,
        trace,
        requests: lookup.requests,
      });
      // The source refused the bulk form (filter not allowed, limit, size): every value is read singly instead.
      if (response.status >= 400 && response.status < 500) return new Map();
      return bulkRecords(response, lookup.binding, values);
    } catch (error) {
      // Only an answer refused for what it holds (too large, invalid) may be the doing of some of its records.
      if (!failsAgain(error)) throw error;
    }
    const settled = new Map<string, BulkOutcome>();
    if (values.length < 2) return settled;
    const middle = Math.ceil(values.length / 2);
    const halves = [values.slice(0, middle), values.slice(middle)];
    await Promise.all(
      halves.map(async (half) => {
        // A lone value is left to its single read.
        if (half.length < 2) return;
        try {
          for (const [value, outcome] of await bulkRead(connection, lookup, half, undefined))
            settled.set(value, outcome);
        } catch (error) {
          // The source failed this half (unavailable, or no time left): its values have the outcome single reads
          // would have had; the other half keeps its own.
          if (!isProblem(error)) throw error;
          for (const value of half) settled.set(value, { problem: error });
        }
      }),
    );
    return settled;
  };

  const connectionOf = (binding: SourceBindingConfig): Connection => {
    const connection = open.get(binding.connection);
    if (!connection)
      throw unavailable('source.not_configured', `connection ${binding.connection} is not configured`);
    return connection;
  };

  return {
    async read(lookup) {
      const connection = connectionOf(lookup.binding);
      const path = recordsPath(
        connection.basePath,
        lookup.binding,
        lookup.binding.lookup.field,
        lookup.value,
        2,
      );
      const response = await fetchWithRetries(connection, {
        path,
        purpose: lookup.purpose,
        requestId: lookup.requestId,
        deadline: lookup.deadline,
        trace: lookup.trace,
        requests: lookup.requests,
      });
      return singleRecord(response, lookup);
    },
    bulkLimit(binding) {
      const config = open.get(binding.connection)?.config;
      return config?.bulk_mode === 'rda_in_filter' ? config.bulk_max_values : 0;
    },
    async readMany(lookup) {
      const connection = connectionOf(lookup.binding);
      return bulkRead(connection, lookup, [...new Set(lookup.values)], lookup.trace);
    },
    close() {
      for (const connection of open.values()) connection.transport.close();
    },
  };
}

interface Page {
  readonly rows: readonly Record<string, unknown>[];
  /** `pagination.has_more` when the source sent it. */
  readonly hasMore: boolean | undefined;
}

function parsePage(response: HttpResponse): Page {
  if (response.status === 400) throw refusal(response);
  if (response.status !== 200) {
    const code =
      response.status >= 300 && response.status < 400
        ? 'source.redirect_refused'
        : `source.http_${response.status}`;
    throw unavailable(code, `the source answered HTTP ${response.status}`);
  }
  let body: { data?: unknown; pagination?: { has_more?: unknown } } | null;
  try {
    body = JSON.parse(response.body.toString('utf8'));
  } catch {
    throw unavailable('source.invalid_response', 'the source response is not JSON');
  }
  const data = body?.data;
  if (
    !Array.isArray(data) ||
    !data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))
  ) {
    throw unavailable('source.invalid_response', 'the source response has no `data` list of records');
  }
  if (data.some(nestsTooDeep)) {
    throw unavailable(
      'source.invalid_response',
      `a record in the source response nests deeper than ${MAX_ROW_DEPTH} levels`,
    );
  }
  const hasMore = body?.pagination?.has_more;
  return {
    rows: data as Record<string, unknown>[],
    hasMore: typeof hasMore === 'boolean' ? hasMore : undefined,
  };
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

/** The `code` of a problem+json body, or undefined when the body is not one. */
function problemCodeOf(body: Buffer): string | undefined {
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

/**
 * How deep arrays and objects may nest inside a record: far beyond any registry record, and shallow enough for
 * everything downstream (the rule evaluator serialises bindings recursively) to handle it.
 */
const MAX_ROW_DEPTH = 32;

/** Walked with an explicit stack: a recursive check could itself overflow on the rows it is meant to refuse. */
function nestsTooDeep(row: object): boolean {
  const containers: object[] = [row];
  const depths: number[] = [0];
  for (let container = containers.pop(); container !== undefined; container = containers.pop()) {
    const depth = (depths.pop() as number) + 1;
    for (const value of Object.values(container)) {
      if (value === null || typeof value !== 'object') continue;
      if (depth > MAX_ROW_DEPTH) return true;
      containers.push(value);
      depths.push(depth);
    }
  }
  return false;
}

function singleRecord(response: HttpResponse, lookup: SourceLookup): SourceRecord {
  const { rows } = parsePage(response);
  if (rows.length === 0) throw notAvailable('target.not_found', 'the source holds no record for the target');
  if (rows.length > 1)
    throw notAvailable('target.match_ambiguous', 'the source holds several records for the target');
  return { row: rows[0] as Record<string, unknown>, sourceId: sourceIdOf(lookup.binding) };
}

/**
 * Matches the rows of an `.in` read back to the values asked for, by the lookup field. A source answers a row's
 * lookup field in its own spelling, and may match values otherwise than by exact text (a timestamp field matches
 * `2020-01-01`, `2020-01-01T00:00:00Z` and `2020-01-01T01:00:00+01:00` alike and answers
 * `2020-01-01T00:00:00.000Z`; a number field `007` and `7`; a case-insensitive one `a1` and `A1`), so a value's
 * rows are found by its text only when it is the spelling the source answers with. Settled:
 * - a value with two or more rows of its text: ambiguous (its single read finds those at least);
 * - when the answer is complete and holds no row for a value not asked: a value with one row of its text, unless
 *   another row's text is the same but for case or accents (a case-insensitive source would find both);
 * - likewise, a value without a row of its text, as not found, when every row's text is a string and none could be
 *   another spelling of the value (the same but for case or accents, the same number, a day or time within a day
 *   of it). No row at all shows nothing of how the source compares.
 * Any other value is left out, to be read singly.
 */
function bulkRecords(
  response: HttpResponse,
  binding: SourceBindingConfig,
  values: readonly string[],
): Map<string, BulkOutcome> {
  const { rows, hasMore } = parsePage(response);
  const field = binding.lookup.field;
  const wanted = new Set(values);
  const groups = new Map<string, Record<string, unknown>[]>();
  // A row for a value not asked shows the source matches otherwise than by exact text: a value's rows may then be
  // answered under another text, and only the ambiguities the answer proves are settled.
  let stray = false;
  // Every row's lookup field is text: a number or boolean may have been matched from another spelling.
  let textCells = true;
  for (const row of rows) {
    const cell = row[field];
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
      if (spellings.foldedOnce(value))
        settled.set(value, { record: { row: group[0] as Record<string, unknown>, sourceId } });
    } else if (textCells && rows.length > 0 && !spellings.mayRespell(value)) {
      settled.set(value, {
        problem: notAvailable('target.not_found', 'the source holds no record for the target'),
      });
    }
  }
  return settled;
}

const DAY_MS = 86_400_000;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const DAY_TEXT = /^[+-]?(\d{4,6})-(\d{2})-(\d{2})/;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const MARKS = /\p{M}/gu;

/**
 * The texts of a bulk answer's lookup field, compared as a lenient source might: without case or accents, as
 * numbers, as days. Each comparison is worked out for the answer's texts on first use only.
 */
class Spellings {
  private readonly texts: readonly string[];
  private folds: Map<string, number> | undefined;
  private numbers: Set<number> | undefined;
  private days: Set<number> | undefined;

  constructor(texts: Iterable<string>) {
    this.texts = [...texts];
  }

  /** No other text answered is the same as this one (answered) but for case or accents. */
  foldedOnce(text: string): boolean {
    return (this.foldCounts().get(fold(text)) ?? 0) <= 1;
  }

  /** Whether a text not answered may be another spelling of one answered. */
  mayRespell(text: string): boolean {
    if (this.foldCounts().has(fold(text))) return true;
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

/** The day (since 1970) a text starting `YYYY-MM-DD` names, as any date or ISO 8601 timestamp does. */
function dayOf(text: string): number | undefined {
  const match = DAY_TEXT.exec(text);
  if (!match) return undefined;
  return Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) / DAY_MS;
}

/** An attempt cut short by the request's deadline timed out: the request has timed out, not the source. */
function deadlineReached(error: unknown): never {
  if (error instanceof TransportError && error.kind === 'timeout') {
    throw requestTimedOut('source.timeout', 'the source did not answer before the request timed out');
  }
  throw error;
}

function unavailable(code: string, message: string) {
  return verifierProblem('source.unavailable', 'A source is unavailable; retry later.', {
    cause: new FailureReason(code, message),
  });
}

/** Not found and ambiguous look the same to the client: no single record backs the claim. */
function notAvailable(code: string, message: string) {
  return verifierProblem('evidence.not_available', 'No single source record matches the target.', {
    cause: new FailureReason(code, message),
  });
}
