// The relay read scenarios: their URLs and headers, and a check that a server answers each one as expected.
import { householdCode } from '../data/generate-bench-data.ts';

export type ScenarioName = 'eq-10-rows' | 'not-modified-304' | 'page-100';

export interface PreparedScenario {
  readonly name: ScenarioName;
  readonly description: string;
  /** Path and query, identical for the relay and the bare server. */
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly expectedStatus: 200 | 304;
  /** Minimum relay/bare throughput ratio the scenario should reach. */
  readonly targetRatio: number;
  /** The relay's 200 answer to `path`, which the bare server replays byte for byte. */
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
  /** Rows in the 200 body. */
  readonly rows: number;
}

export const SCENARIO_NAMES: readonly ScenarioName[] = ['eq-10-rows', 'not-modified-304', 'page-100'];

const RECORDS_PATH = '/v1/datasets/bench/entities/records/records';
/** Any household has exactly ten rows; this one sits in the middle of the code range. */
const EQ_PATH = `${RECORDS_PATH}?household_code=${householdCode(4242)}`;
const PAGE_PATH = `${RECORDS_PATH}?limit=100`;

/** Fetches each scenario's relay answer once, checking status and row count, so the bare server can replay it. */
export async function prepareScenarios(
  relayUrl: string,
  apiKey: string,
  names: readonly ScenarioName[] = SCENARIO_NAMES,
): Promise<PreparedScenario[]> {
  const auth = { authorization: `Bearer ${apiKey}` };
  const eq = await fetchOk(relayUrl, EQ_PATH, auth, 10);
  const page = await fetchOk(relayUrl, PAGE_PATH, auth, 100);
  const all: PreparedScenario[] = [
    {
      name: 'eq-10-rows',
      description: 'equality filter on a field with 10,000 distinct values (10 rows)',
      path: EQ_PATH,
      headers: auth,
      expectedStatus: 200,
      targetRatio: 0.5,
      ...eq,
    },
    {
      name: 'not-modified-304',
      description: 'the same read revalidated with If-None-Match (304, no body)',
      path: EQ_PATH,
      headers: { ...auth, 'if-none-match': eq.etag },
      expectedStatus: 304,
      targetRatio: 0.5,
      ...eq,
    },
    {
      name: 'page-100',
      description: 'first page of 100 rows, no filter (with a next cursor)',
      path: PAGE_PATH,
      headers: auth,
      expectedStatus: 200,
      targetRatio: 0.4,
      ...page,
    },
  ];
  const scenarios = all.filter((scenario) => names.includes(scenario.name));
  for (const scenario of scenarios) await checkScenario(relayUrl, scenario);
  return scenarios;
}

/** Throws unless `baseUrl` answers the scenario with its expected status (and, for 200, the same body size). */
export async function checkScenario(baseUrl: string, scenario: PreparedScenario): Promise<void> {
  const response = await fetch(baseUrl + scenario.path, { headers: scenario.headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== scenario.expectedStatus) {
    throw new Error(
      `${scenario.name}: ${baseUrl} answered ${response.status}, expected ${scenario.expectedStatus}: ${body}`,
    );
  }
  const expectedBytes = scenario.expectedStatus === 304 ? 0 : scenario.body.length;
  if (body.length !== expectedBytes) {
    throw new Error(`${scenario.name}: ${baseUrl} sent ${body.length} body bytes, expected ${expectedBytes}`);
  }
}

async function fetchOk(
  relayUrl: string,
  path: string,
  headers: Record<string, string>,
  expectedRows: number,
): Promise<{ body: Buffer; contentType: string; etag: string; rows: number }> {
  const response = await fetch(relayUrl + path, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${body}`);
  const rows = (JSON.parse(body.toString('utf8')) as { data: unknown[] }).data.length;
  if (rows !== expectedRows) throw new Error(`GET ${path} returned ${rows} rows, expected ${expectedRows}`);
  const etag = response.headers.get('etag');
  const contentType = response.headers.get('content-type');
  if (etag === null || contentType === null) throw new Error(`GET ${path} has no ETag or Content-Type`);
  return { body, contentType, etag, rows };
}
