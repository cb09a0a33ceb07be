// The verifier part of the demo banner: requests that work as printed against the demo data (the demo e2e test
// runs every one of them). Each request follows a `# note` line saying what it shows, starting with the status when
// the answer is not 200. EVALUATION_ID stands for the id of the evaluation printed just before it.
import { noted } from './demo-example-lines.ts';

const PURPOSE = 'https://demo.example.gov/purpose/benefit-eligibility';
const CCCEV_ACCEPT = 'application/ld+json; profile=cccev';

/** Alive head of enrolled household hh-1033. */
const ELIGIBLE = [
  { scheme: 'national_id', value: 'FAKE-937193' },
  { scheme: 'person_id', value: 'per-10053' },
];
/** Head of enrolled household hh-1097, but a death is registered. */
const DECEASED_HEAD = [
  { scheme: 'national_id', value: 'FAKE-710143' },
  { scheme: 'person_id', value: 'per-10098' },
];
/** Alive, registered, member (not head) of hh-1110. */
const NOT_A_HEAD = [
  { scheme: 'national_id', value: 'FAKE-412781' },
  { scheme: 'person_id', value: 'per-10001' },
];

export interface VerifierExampleKeys {
  readonly caseworker: string;
  readonly healthPlanner: string;
  readonly operator: string;
}

export function verifierExamples(url: string, adminUrl: string, keys: VerifierExampleKeys): string[] {
  const evaluate = (
    key: string,
    identifiers: readonly { scheme: string; value: string }[],
    claims: readonly string[],
    options: { disclosure?: string; accept?: string } = {},
  ) => {
    const body = JSON.stringify({
      target: { type: 'person', identifiers },
      claims,
      ...(options.disclosure ? { disclosure: options.disclosure } : {}),
    });
    const accept = options.accept ? ` -H "Accept: ${options.accept}"` : '';
    return (
      `curl -s -H "x-api-key: ${key}" -H "Data-Purpose: ${PURPOSE}" -H "Content-Type: application/json"` +
      `${accept} -d '${body}' "${url}/v1/evaluations"`
    );
  };
  const cw = keys.caseworker;
  // Two people in one request; sent twice with the same Idempotency-Key, the second is the first answer replayed.
  const batch =
    `curl -s -H "x-api-key: ${cw}" -H "Data-Purpose: ${PURPOSE}" -H "Content-Type: application/json"` +
    ` -H "Idempotency-Key: demo-batch-1" -d '${JSON.stringify({
      items: [ELIGIBLE, DECEASED_HEAD].map((identifiers) => ({
        target: { type: 'person', identifiers: identifiers.slice(0, 1) },
      })),
      claims: ['person-is-alive'],
    })}' "${url}/v1/batch-evaluations"`;
  return [
    ...noted(`curl -s "${url}/ready"`),
    ...noted(`curl -s -H "x-api-key: ${cw}" "${url}/v1/claims"`),
    ...noted(
      evaluate(cw, ELIGIBLE.slice(0, 1), ['person-is-alive']),
      'cel; predicate: whether it holds, no record',
    ),
    ...noted(evaluate(cw, ELIGIBLE.slice(0, 1), ['person-is-registered']), 'exists'),
    ...noted(
      evaluate(cw, ELIGIBLE.slice(0, 1), ['person-birth-date'], { disclosure: 'value' }),
      'extract; disclosure value',
    ),
    ...noted(
      evaluate(cw, ELIGIBLE.slice(0, 1), ['person-birth-date']),
      'extract; redacted by default: no value',
    ),
    ...noted(
      evaluate(cw, ELIGIBLE, ['eligible-for-cash-transfer']),
      'composite over two datasets: source_count 2',
    ),
    ...noted(
      evaluate(cw, DECEASED_HEAD, ['eligible-for-cash-transfer']),
      'satisfied false: a death is registered',
    ),
    ...noted(
      evaluate(cw, ELIGIBLE, ['person-is-alive', 'household-is-enrolled'], { accept: CCCEV_ACCEPT }),
      'CCCEV JSON-LD',
    ),
    ...noted(
      `curl -s -X POST -H "x-api-key: ${cw}" -H "Accept: ${CCCEV_ACCEPT}" "${url}/v1/evaluations/EVALUATION_ID/render"`,
      'the stored CCCEV evaluation again (EVALUATION_ID: its dcterms:identifier)',
    ),
    ...noted(batch, 'batch: one result per person, with its own evaluation id'),
    ...noted(
      batch,
      'the same batch again: its first answer replayed (curl -i shows idempotent-replayed: true)',
    ),
    ...noted(
      evaluate(cw, NOT_A_HEAD, ['household-is-enrolled']),
      '409 evidence.not_available: heads no household',
    ),
    ...noted(
      evaluate(cw, ELIGIBLE, ['income-below-threshold']),
      '501 claim.operation_unsupported: plugin rule',
    ),
    ...noted(
      evaluate(keys.healthPlanner, ELIGIBLE.slice(0, 1), ['person-is-alive']),
      '403 auth.scope_denied',
    ),
    ...noted(
      `curl -s -H "x-api-key: ${keys.healthPlanner}" "${url}/v1/claims"`,
      'discovery without a verifier scope: no claim listed',
    ),
    ...noted(
      `curl -s -X POST -H "x-api-key: ${keys.operator}" "${adminUrl}/admin/v1/reload"`,
      'a no-op: restart to apply changes',
    ),
  ];
}
