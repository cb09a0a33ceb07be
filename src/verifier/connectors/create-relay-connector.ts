// The `registry_data_api` connector: one filtered records read per lookup against a relay, with retries,
// a per-connection concurrency limit and the collapse of "none" and "several" into evidence.not_available.
// Connections with `bulk_mode: rda_in_filter` also read many lookups at once with `<field>.in=a,b,...`.
import type { Clock } from '../../platform/clock.ts';
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
import { FailureReason } from './failure-reason.ts';
import { recordsPath } from './records-path.ts';
import { parseRetryAfter, retryDelay } from './retry-delay.ts';
import {
  type BulkOutcome,
  type ReadTrace,
  type SourceLookup,
  type SourceReader,
  type SourceRecord,
  sourceIdOf,
  requestTimedOut,
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
  }

  /**
   * One attempt: waits for a permit (no later than the deadline), then sends, within `timeout` and the time the
   * request has left. The first attempt that leaves tells the trace.
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
      });
      return singleRecord(response, lookup);
    },
    bulkLimit(binding) {
      const config = open.get(binding.connection)?.config;
      return config?.bulk_mode === 'rda_in_filter' ? config.bulk_max_values : 0;
    },
    async readMany(lookup) {
      const connection = connectionOf(lookup.binding);
      const values = [...new Set(lookup.values)];
      const field = lookup.binding.lookup.field;
      const path = recordsPath(
        connection.basePath,
        lookup.binding,
        `${field}.in`,
        values.join(','),
        values.length,
      );
      const response = await fetchWithRetries(connection, {
        path,
        purpose: lookup.purpose,
        requestId: lookup.requestId,
        deadline: lookup.deadline,
        trace: lookup.trace,
      });
      // The source refused the bulk form (filter not allowed, limit, size): every value is read singly instead.
      if (response.status >= 400 && response.status < 500) return new Map();
      return bulkRecords(response, lookup.binding, values);
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
 * Matches the rows of an `.in` read back to the values asked for, by the lookup field. Settled: a value with two
 * or more rows (ambiguous); when the answer is complete, a value with one row. A value with no row is settled as
 * not found only when nothing suggests the source rewrote values (every row matched a value exactly and carried
 * its key as text, as a string field does); otherwise, like any value the answer cannot settle, it is left out
 * and read singly.
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
  // A row for a value not asked shows the source matches otherwise than by exact text (case, normalisation, a
  // number's other spellings): then a value's single row may not be all its single read would find either.
  let stray = false;
  // No stray row and text keys only: a value without rows has none at the source.
  let exact = true;
  for (const row of rows) {
    const cell = row[field];
    const key =
      typeof cell === 'string' || typeof cell === 'number' || typeof cell === 'boolean'
        ? String(cell)
        : undefined;
    if (typeof cell !== 'string') exact = false;
    if (key === undefined || !wanted.has(key)) {
      stray = true;
      exact = false;
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
  for (const value of values) {
    const group = groups.get(value) ?? [];
    if (group.length > 1) {
      settled.set(value, {
        problem: notAvailable('target.match_ambiguous', 'the source holds several records for the target'),
      });
    } else if (complete && !stray && group.length === 1) {
      settled.set(value, { record: { row: group[0] as Record<string, unknown>, sourceId } });
    } else if (complete && exact && rows.length > 0) {
      settled.set(value, {
        problem: notAvailable('target.not_found', 'the source holds no record for the target'),
      });
    }
  }
  return settled;
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
