// The evaluate bench scenarios: the relay's filtered read (exactly the request the verifier's connector sends)
// and single-claim evaluations through the verifier, each cycling through the same subjects.
import assert from 'node:assert/strict';
import type { ScriptedRequests } from './write-request-script.ts';

export type ServerName = 'relay' | 'verifier' | 'bare';
export type ScenarioName = 'relay-read' | 'evaluate-extract' | 'evaluate-cel' | 'bare-proxy';

export interface PreparedScenario {
  readonly name: ScenarioName;
  readonly description: string;
  /** Which process answers: the relay alone, the verifier (which reads the relay), or the bare proxy baseline. */
  readonly server: ServerName;
  readonly baseUrl: string;
  readonly requests: ScriptedRequests;
  /** The first request, for the README and the results file. */
  readonly sample: string;
}

export const PURPOSE = 'https://bench.example/purpose/eligibility';
const RECORDS_PATH = '/v1/datasets/bench/entities/records/records';

/** Subject ids spread over the 100,000 records (R0000001...). */
export function subjectIds(count: number, offset = 0): string[] {
  return Array.from(
    { length: count },
    (_, index) => `R${String(1 + (((offset + index) * 97) % 100_000)).padStart(7, '0')}`,
  );
}

/** The connector's read for one subject: lookup filter, sorted `fields` including the lookup field, `limit=2`. */
export function relayReadPath(id: string, fields: readonly string[]): string {
  const url = new URL(`http://relay${RECORDS_PATH}`);
  url.searchParams.set('record_id', id);
  url.searchParams.set('fields', [...new Set(['record_id', ...fields])].sort().join(','));
  url.searchParams.set('limit', '2');
  return `${url.pathname}${url.search}`;
}

export function evaluationBody(id: string, claim: string): string {
  return JSON.stringify({ target: { type: 'person', id }, claims: [claim] });
}

export async function prepareScenarios(options: {
  relayUrl: string;
  verifierUrl: string;
  /** The bare node:http proxy baseline (bare-proxy.ts). */
  bareUrl: string;
  relayKey: string;
  callerKey: string;
  subjects: number;
}): Promise<PreparedScenario[]> {
  const ids = subjectIds(options.subjects);
  const relayHeaders = {
    // The headers the connector sends, with a request id of the same length as the verifier's.
    authorization: `Bearer ${options.relayKey}`,
    accept: 'application/json',
    'data-purpose': PURPOSE,
    'x-request-id': '01JBENCH0000000000000000RQ',
    'user-agent': 'ambit-verifier',
  };
  const callerHeaders = {
    'x-api-key': options.callerKey,
    'content-type': 'application/json',
    'data-purpose': PURPOSE,
  };
  const evaluate = (claim: string): ScriptedRequests => ({
    method: 'POST' as const,
    headers: callerHeaders,
    paths: ids.map(() => '/v1/evaluations'),
    bodies: ids.map((id) => evaluationBody(id, claim)),
  });
  const scenarios: PreparedScenario[] = [
    {
      name: 'relay-read',
      description: 'the relay alone: the filtered one-record read the connector sends',
      server: 'relay',
      baseUrl: options.relayUrl,
      requests: {
        method: 'GET',
        headers: relayHeaders,
        paths: ids.map((id) => relayReadPath(id, ['enrolled'])),
      },
      sample: `GET ${relayReadPath(ids[0] as string, ['enrolled'])}`,
    },
    {
      name: 'evaluate-extract',
      description: 'POST /v1/evaluations, one `extract` claim: the verifier plus that relay read',
      server: 'verifier',
      baseUrl: options.verifierUrl,
      requests: evaluate('enrolled'),
      sample: `POST /v1/evaluations ${evaluationBody(ids[0] as string, 'enrolled')}`,
    },
    {
      name: 'evaluate-cel',
      description: 'POST /v1/evaluations, one `cel` claim (CEL in a worker thread) over the same read',
      server: 'verifier',
      baseUrl: options.verifierUrl,
      requests: evaluate('large_household'),
      sample: `POST /v1/evaluations ${evaluationBody(ids[0] as string, 'large_household')}`,
    },
    {
      name: 'bare-proxy',
      description:
        'baseline: the `evaluate-extract` request to bare node:http that makes the same relay read and answers its field',
      server: 'bare',
      baseUrl: options.bareUrl,
      requests: evaluate('enrolled'),
      sample: `POST /v1/evaluations ${evaluationBody(ids[0] as string, 'enrolled')}`,
    },
  ];
  // The verifier must agree with the relay on a few subjects before anything is measured.
  for (const id of ids.slice(0, 5)) {
    const row = await readOne(
      options.relayUrl,
      relayReadPath(id, ['enrolled', 'household_size']),
      relayHeaders,
    );
    const enrolled = await evaluateOne(options.verifierUrl, callerHeaders, evaluationBody(id, 'enrolled'));
    assert.equal(enrolled, row.enrolled, `verifier and relay disagree on ${id}`);
    const large = await evaluateOne(
      options.verifierUrl,
      callerHeaders,
      evaluationBody(id, 'large_household'),
    );
    assert.equal(large, Number(row.household_size) >= 5, `verifier and relay disagree on ${id}`);
    const bare = await evaluateOne(options.bareUrl, callerHeaders, evaluationBody(id, 'enrolled'));
    assert.equal(bare, row.enrolled, `the bare proxy and the relay disagree on ${id}`);
  }
  for (const scenario of scenarios) await checkScenario(scenario);
  return scenarios;
}

/** Sends a scenario's first request and checks the answer: wrk would count a wrong 200 as a success. */
export async function checkScenario(scenario: PreparedScenario): Promise<void> {
  const { requests } = scenario;
  const response = await fetch(`${scenario.baseUrl}${requests.paths[0]}`, {
    method: requests.method,
    headers: requests.headers,
    ...(requests.bodies ? { body: requests.bodies[0] } : {}),
  });
  const text = await response.text();
  assert.equal(response.status, 200, `${scenario.name}: ${text}`);
  const body = JSON.parse(text) as { data?: unknown[]; results?: { value: unknown }[] };
  if (scenario.server === 'relay') assert.equal(body.data?.length, 1, `${scenario.name}: ${text}`);
  else assert.equal(typeof body.results?.[0]?.value, 'boolean', `${scenario.name}: ${text}`);
}

async function readOne(
  baseUrl: string,
  path: string,
  headers: Record<string, string>,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}${path}`, { headers });
  const body = (await response.json()) as { data: Record<string, unknown>[] };
  assert.equal(response.status, 200, JSON.stringify(body));
  assert.equal(body.data.length, 1);
  return body.data[0] as Record<string, unknown>;
}

async function evaluateOne(baseUrl: string, headers: Record<string, string>, body: string): Promise<unknown> {
  const response = await fetch(`${baseUrl}/v1/evaluations`, { method: 'POST', headers, body });
  const parsed = (await response.json()) as { results: { value: unknown }[] };
  assert.equal(response.status, 200, JSON.stringify(parsed));
  return parsed.results[0]?.value;
}
