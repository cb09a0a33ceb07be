// The `registry_data_api` connector: one filtered records read per lookup against a relay, with retries,
// a per-connection concurrency limit and the collapse of "none" and "several" into evidence.not_available.
import type { Clock } from '../../platform/clock.ts';
import type { Random } from '../../platform/random.ts';
import type { SourceConnectionConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import {
  createHttpTransport,
  type HttpResponse,
  type HttpTransport,
  TransportError,
} from './create-http-transport.ts';
import { createSemaphore, type Semaphore } from './create-semaphore.ts';
import { FailureReason } from './failure-reason.ts';
import { parseRetryAfter, retryDelay } from './retry-delay.ts';
import { type SourceLookup, type SourceReader, type SourceRecord, sourceIdOf } from './source-reader.ts';

export interface RelayConnectorDeps {
  readonly clock: Clock;
  readonly random: Random;
  /** Waits between attempts; injected so tests need not wait. */
  readonly sleep?: (ms: number) => Promise<void>;
  readonly transportFor?: (connection: SourceConnectionConfig) => HttpTransport;
}

interface Connection {
  readonly config: SourceConnectionConfig;
  readonly token: string;
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
    deps.transportFor ?? ((config) => createHttpTransport(config, { maxSockets: config.max_in_flight }));
  const open = new Map<string, Connection>();
  for (const [id, config] of Object.entries(connections)) {
    const token = tokens.get(id);
    if (token === undefined) continue;
    open.set(id, {
      config,
      token,
      transport: transportFor(config),
      permits: createSemaphore(config.max_in_flight),
    });
  }

  const fraction = () => deps.random.bytes(4).readUInt32BE(0) / 2 ** 32;

  const attemptOnce = (connection: Connection, lookup: SourceLookup): Promise<HttpResponse> =>
    connection.permits.run(() =>
      connection.transport.send({
        url: recordsUrl(connection.config.base_url, lookup),
        headers: {
          authorization: `Bearer ${connection.token}`,
          accept: 'application/json',
          'data-purpose': lookup.purpose,
          'x-request-id': lookup.requestId,
          'user-agent': 'ambit-verifier',
        },
        timeoutMs: connection.config.timeout,
      }),
    );

  const fetchWithRetries = async (connection: Connection, lookup: SourceLookup): Promise<HttpResponse> => {
    const policy = connection.config.retry;
    for (let attempt = 1; ; attempt++) {
      let failure: FailureReason;
      let retryAfter: number | undefined;
      try {
        const response = await attemptOnce(connection, lookup);
        if (!RETRY_STATUSES.has(response.status)) return response;
        const header = response.headers['retry-after'];
        retryAfter = parseRetryAfter(typeof header === 'string' ? header : undefined, deps.clock.now());
        failure = new FailureReason(
          response.status === 429 ? 'source.rate_limited' : `source.http_${response.status}`,
          `the source answered HTTP ${response.status}`,
        );
      } catch (error) {
        if (!(error instanceof TransportError)) throw error;
        if (error.kind === 'address_denied' || error.kind === 'too_large')
          throw unavailable(`source.${error.kind}`, error.message);
        failure = new FailureReason(`source.${error.kind}`, error.message);
      }
      const delay = retryDelay(policy, attempt, retryAfter, fraction());
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

  return {
    async read(lookup) {
      const connection = open.get(lookup.binding.connection);
      if (!connection)
        throw unavailable(
          'source.not_configured',
          `connection ${lookup.binding.connection} is not configured`,
        );
      const response = await fetchWithRetries(connection, lookup);
      return singleRecord(response, lookup);
    },
    close() {
      for (const connection of open.values()) connection.transport.close();
    },
  };
}

function recordsUrl(baseUrl: string, lookup: SourceLookup): URL {
  const { binding } = lookup;
  const url = new URL(baseUrl);
  const prefix = url.pathname.replace(/\/+$/, '');
  url.pathname = `${prefix}/v1/datasets/${encodeURIComponent(binding.dataset)}/entities/${encodeURIComponent(binding.entity)}/records`;
  url.searchParams.set(binding.lookup.field, lookup.value);
  const fields = [...new Set([binding.lookup.field, ...binding.fields])].sort();
  url.searchParams.set('fields', fields.join(','));
  url.searchParams.set('limit', '2');
  return url;
}

function singleRecord(response: HttpResponse, lookup: SourceLookup): SourceRecord {
  if (response.status !== 200) {
    const code =
      response.status >= 300 && response.status < 400
        ? 'source.redirect_refused'
        : `source.http_${response.status}`;
    throw unavailable(code, `the source answered HTTP ${response.status}`);
  }
  let data: unknown;
  try {
    data = (JSON.parse(response.body.toString('utf8')) as { data?: unknown }).data;
  } catch {
    throw unavailable('source.invalid_response', 'the source response is not JSON');
  }
  if (
    !Array.isArray(data) ||
    !data.every((row) => row !== null && typeof row === 'object' && !Array.isArray(row))
  ) {
    throw unavailable('source.invalid_response', 'the source response has no `data` list of records');
  }
  if (data.length === 0) throw notAvailable('target.not_found', 'the source holds no record for the target');
  if (data.length > 1)
    throw notAvailable('target.match_ambiguous', 'the source holds several records for the target');
  return { row: data[0] as Record<string, unknown>, sourceId: sourceIdOf(lookup.binding) };
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
