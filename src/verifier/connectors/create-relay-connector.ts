// The `registry_data_api` connector: one filtered records read per lookup against a relay, with retries,
// a per-connection concurrency limit and the collapse of "none" and "several" into evidence.not_available.
// Connections with `bulk_mode: rda_in_filter` also read many lookups at once with `<field>.in=a,b,...`.
import type { Clock } from '../../platform/clock.ts';
import type { Logger } from '../../platform/log.ts';
import { isProblem } from '../../platform/problem/problem.ts';
import type { Random } from '../../platform/random.ts';
import type { SourceBindingConfig, SourceConnectionConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import { halvesOf } from './bulk-groups.ts';
import { createBulkRefusalLog } from './bulk-refusal-log.ts';
import {
  createHttpTransport,
  type HttpResponse,
  type HttpTransport,
  RETRIED_STATUSES,
  TransportError,
} from './create-http-transport.ts';
import { createSemaphore, PermitTimeout, type Semaphore } from './create-semaphore.ts';
import { FailureReason, failsAgain } from './failure-reason.ts';
import { createReadWatch, deadlineReached, hasPassed } from './read-watch.ts';
import { recordsPath } from './records-path.ts';
import {
  bulkRecords,
  holdsInvalidRow,
  parsePage,
  refusesValue,
  singleRecord,
  unavailable,
} from './relay-answers.ts';
import { parseRetryAfter, retryDelay } from './retry-delay.ts';
import { createSourceOutageLog } from './source-outage-log.ts';
import {
  type BulkLookup,
  type BulkOutcome,
  type ReadTrace,
  type RequestCounter,
  requestTimedOut,
  type ServedReads,
  type SourceLookup,
  type SourceReader,
  type SourceRecord,
} from './source-reader.ts';

export interface RelayConnectorDeps {
  readonly clock: Clock;
  readonly random: Random;
  /** Waits between attempts; injected so tests need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly transportFor?: (connection: SourceConnectionConfig) => HttpTransport;
  /** Told that a source refuses the bulk form (once per binding and reason), and of sources that fail reads. */
  readonly logger?: Logger;
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

// The interface spec's list, which says "only": 429 and 503 are the source's word that it is busy or down. A 502 or
// 504 (a gateway's) is not retried: it answers 503 at once, as a 500 does.
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
      basePath: new URL(config.base_url).pathname.replace(/(?<!\/)\/+$/, ''),
      transport: transportFor(config),
      permits: createSemaphore(config.max_in_flight),
    });
  }

  const fraction = () => deps.random.bytes(4).readUInt32BE(0) / 2 ** 32;
  const watch = createReadWatch();

  /** What one upstream request needs besides the connection. */
  interface Request {
    /** Path and query of the records read. */
    readonly path: string;
    readonly purpose: string;
    readonly requestId: string;
    /**
     * `performance.now()` instant after which no attempt starts; undefined for none. Read at each decision: it moves
     * earlier when the client goes away, and a read then still waiting for a slot or a retry is not sent.
     */
    readonly deadline: number | undefined;
    readonly trace: ReadTrace | undefined;
    readonly requests: RequestCounter | undefined;
    readonly onPause: (() => void) | undefined;
  }

  /**
   * The upstream request of a lookup (single or bulk) for `path`, on behalf of `served` (by default the lookup's
   * own); its deadline read from the lookup each time.
   */
  const requestOf = (
    lookup: SourceLookup | BulkLookup,
    path: string,
    trace: ReadTrace | undefined,
    served: ServedReads = lookup,
  ): Request => ({
    path,
    purpose: lookup.purpose,
    requestId: served.requestId,
    get deadline() {
      return lookup.deadline;
    },
    trace,
    requests: served.requests,
    onPause: lookup.onPause,
  });

  /**
   * One attempt: waits for a permit (no later than the deadline), then sends, within `timeout` and the time the
   * request has left. The first attempt that leaves tells the trace; every request sent tells the request counter.
   * A request lost with a stale kept-alive socket is sent again at once on a fresh one, within the same attempt.
   */
  const attemptOnce = (connection: Connection, lookup: Request, first: boolean): Promise<HttpResponse> =>
    connection.permits.run(
      () =>
        sendOnce(connection, lookup, first).catch((error: unknown) => {
          if (error instanceof TransportError && error.stale) return sendOnce(connection, lookup, false);
          throw error;
        }),
      lookup.deadline,
    );

  /** One request, within `timeout` and the time the request has left; `first` tells the trace it leaves. */
  const sendOnce = (connection: Connection, lookup: Request, first: boolean): Promise<HttpResponse> => {
    let timeoutMs = connection.config.timeout;
    let cut = false;
    if (lookup.deadline !== undefined) {
      const left = lookup.deadline - performance.now();
      if (left <= 0) return Promise.reject(requestTimedOut());
      if (left < timeoutMs) {
        timeoutMs = left;
        cut = true;
      }
    }
    if (first) lookup.trace?.readSent();
    lookup.requests?.requestSent();
    return watch
      .attempt(lookup, (cancellable) =>
        connection.transport.send({
          path: lookup.path,
          headers: {
            authorization: connection.authorization,
            accept: 'application/json',
            'data-purpose': lookup.purpose,
            'x-request-id': lookup.requestId,
            'user-agent': 'ambit-verifier',
          },
          timeoutMs,
          cancellable,
        }),
      )
      .catch((error: unknown) => deadlineReached(error, cut || hasPassed(lookup)));
  };

  const fetchWithRetries = async (connection: Connection, lookup: Request): Promise<HttpResponse> => {
    const policy = connection.config.retry;
    for (let attempt = 1; ; attempt++) {
      let failure: FailureReason;
      let retryAfter: number | undefined;
      try {
        const response = await attemptOnce(connection, lookup, attempt === 1);
        if (!RETRIED_STATUSES.has(response.status)) return response;
        const { 'retry-after': header, date } = response.headers;
        retryAfter = parseRetryAfter(
          typeof header === 'string' ? header : undefined,
          deps.clock.now(),
          typeof date === 'string' ? date : undefined,
        );
        failure = new FailureReason(
          response.status === 429 ? 'source.rate_limited' : `source.http_${response.status}`,
          `the source answered HTTP ${response.status}`,
        );
      } catch (error) {
        if (error instanceof PermitTimeout) throw requestTimedOut();
        if (!(error instanceof TransportError)) throw error;
        // Only a timeout or a network failure may pass: a refused address or certificate, a name that does not
        // exist, a request that cannot be sent, an answer that breaks HTTP would fail the next attempt the same way.
        if (error.kind !== 'timeout' && error.kind !== 'network')
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
        // At least a second: every attempt was spent, so "now" (a source's 0, or a date past) would be wrong.
        const headers: Record<string, string> =
          retryAfter === undefined
            ? {}
            : { 'retry-after': String(Math.max(1, Math.ceil(retryAfter / 1000))) };
        throw verifierProblem('source.unavailable', 'A source is unavailable; retry later.', {
          cause: failure,
          headers,
          extras: { retryable: true },
        });
      }
      lookup.onPause?.();
      await watch.pause(lookup, sleep(delay));
      // Its request was answered meanwhile (its client went away): the read ends unsent.
      if (hasPassed(lookup)) throw requestTimedOut();
    }
  };

  const bulkRefused = createBulkRefusalLog(deps.logger);

  /**
   * One `.in` request for `values`. An answer refused as too large or invalid may be the doing of one record: the
   * values are asked again in two halves, and so on down to single values, which are left to single reads (where
   * the record at fault fails its own subject only). So are the values left unsettled by a page a value with several
   * records overfilled. Only such requests are split: none is added when nothing fails. A list refused for a
   * value it holds is narrowed down to it (`narrowRefusedValue`); with `narrow` off, it is answered `undefined`
   * instead. `trace` is told by the first request only.
   */
  const bulkRead = async (
    connection: Connection,
    lookup: BulkLookup,
    values: readonly string[],
    trace: ReadTrace | undefined,
    narrow = true,
  ): Promise<Map<string, BulkOutcome> | undefined> => {
    const field = lookup.binding.lookup.field;
    const path = recordsPath(
      connection.basePath,
      lookup.binding,
      `${field}.in`,
      values.join(','),
      values.length,
    );
    let answer: ReturnType<typeof bulkRecords>;
    try {
      const served = lookup.servedBy?.(values);
      const response = await fetchWithRetries(connection, requestOf(lookup, path, trace, served));
      // The source refused the credential, or has no such collection: so it would each single read (a revoked token
      // or a misnamed entity must not cost one request per subject), and the values all fail as a single read would.
      if (response.status === 401 || response.status === 403 || response.status === 404) parsePage(response);
      // The source cannot read a value of the list as the field (`abc` for a number, a mistyped date): the form
      // is fine, one value is not.
      if (refusesValue(response)) return narrow ? narrowRefusedValue(connection, lookup, values) : undefined;
      // A record of the answer does not fit the source's own schema (a relay serving a table live): its subject's
      // single read fails the same way, its neighbours' do not. Asked again in halves, as an answer too large is.
      if (holdsInvalidRow(response)) return readHalves(connection, lookup, values, new Map());
      // The source refused the bulk form (filter not allowed, limit, size): every value is read singly instead.
      if (response.status >= 400 && response.status < 500) {
        bulkRefused(connection.config, lookup.binding, response);
        return new Map();
      }
      answer = bulkRecords(response, lookup.binding, values);
    } catch (error) {
      // Only an answer refused for what it holds (too large, invalid) may be the doing of some of its records.
      if (!failsAgain(error)) throw error;
      return readHalves(connection, lookup, values, new Map());
    }
    if (!answer.overfull) return answer.settled;
    // A value with several records filled the page and cut its neighbours off: the values left are asked again in
    // halves, which isolate it in a few requests instead of reading each neighbour alone.
    const left = values.filter((value) => !answer.settled.has(value));
    return readHalves(connection, lookup, left, answer.settled);
  };

  /** `values` asked again in two halves, their outcomes added to `settled`; a lone value is left to its single read. */
  const readHalves = async (
    connection: Connection,
    lookup: BulkLookup,
    values: readonly string[],
    settled: Map<string, BulkOutcome>,
  ): Promise<Map<string, BulkOutcome>> => {
    await Promise.all(
      halvesOf(values).map(async (half) => {
        if (half.length < 2) return;
        try {
          for (const [value, outcome] of (await bulkRead(connection, lookup, half, undefined)) ?? [])
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

  /**
   * A list the source refused for a value it holds: its halves are asked, and only a half refused again is narrowed
   * further, down to the value, left to its single read (refused there too, so not found). One mistyped subject
   * costs a few requests instead of one per subject. Both halves refused means more than one value at fault, or a
   * source refusing every list: their values are then read singly, at most two requests more than at once.
   */
  const narrowRefusedValue = async (
    connection: Connection,
    lookup: BulkLookup,
    values: readonly string[],
  ): Promise<Map<string, BulkOutcome>> => {
    const settled = new Map<string, BulkOutcome>();
    const halves = halvesOf(values);
    const answers = await Promise.all(
      halves.map(async (half) => {
        if (half.length < 2) return new Map<string, BulkOutcome>();
        try {
          return await bulkRead(connection, lookup, half, undefined, false);
        } catch (error) {
          if (!isProblem(error)) throw error;
          for (const value of half) settled.set(value, { problem: error });
          return new Map<string, BulkOutcome>();
        }
      }),
    );
    const refused = halves.filter((_, index) => answers[index] === undefined);
    for (const answer of answers) for (const [value, outcome] of answer ?? []) settled.set(value, outcome);
    if (refused.length === 1) {
      for (const [value, outcome] of await narrowRefusedValue(connection, lookup, refused[0] as string[]))
        settled.set(value, outcome);
    }
    return settled;
  };

  const connectionOf = (binding: SourceBindingConfig): Connection => {
    const connection = open.get(binding.connection);
    if (!connection)
      throw unavailable('source.not_configured', `connection ${binding.connection} is not configured`);
    return connection;
  };

  const outages = createSourceOutageLog(deps.logger, () => deps.clock.now());
  /** Tells the outage log how a read of `connection` went. */
  const watched = <T>(connection: string, reading: Promise<T>): Promise<T> =>
    reading.then(
      (result) => {
        outages.answered(connection);
        return result;
      },
      (error: unknown) => {
        if (isProblem(error) && error.code === 'evidence.not_available') outages.answered(connection);
        else outages.failed(connection, error);
        throw error;
      },
    );

  return {
    read: (lookup) => watched(lookup.binding.connection, readOne(lookup)),
    bulkLimit(binding) {
      const config = open.get(binding.connection)?.config;
      return config?.bulk_mode === 'rda_in_filter' ? config.bulk_max_values : 0;
    },
    readMany: (lookup) => watched(lookup.binding.connection, readAll(lookup)),
    recheck: () => watch.recheck(),
    close() {
      for (const connection of open.values()) connection.transport.close();
    },
  };

  async function readAll(lookup: BulkLookup): Promise<Map<string, BulkOutcome>> {
    const connection = connectionOf(lookup.binding);
    return (await bulkRead(connection, lookup, [...new Set(lookup.values)], lookup.trace)) ?? new Map();
  }

  async function readOne(lookup: SourceLookup): Promise<SourceRecord> {
    const connection = connectionOf(lookup.binding);
    const path = recordsPath(
      connection.basePath,
      lookup.binding,
      lookup.binding.lookup.field,
      lookup.value,
      2,
    );
    const response = await fetchWithRetries(connection, requestOf(lookup, path, lookup.trace));
    return singleRecord(response, lookup);
  }
}
