// The relay part of the demo banner: requests that work as printed against the demo data (the demo e2e test runs
// every one of them). A request that answers other than 200 follows a `# <status> <code>` line; URLs are quoted, so
// an IPv6 address in brackets is no shell pattern.
import { noted } from './demo-example-lines.ts';

const PURPOSE = 'https://demo.example.gov/purpose/benefit-eligibility';

/** The banner lines after the keys: headings, and requests indented by two spaces. `key` gives a persona's key. */
export function relayExamples(url: string, key: (persona: string) => string): string[] {
  const caseworker = key('caseworker');
  const viewer = key('catalog_viewer');
  const analyst = key('analyst');
  const aggregates = `${url}/v1/datasets/social_protection/aggregates`;
  const requests = [
    ...noted(`curl -s "${url}/ready"`),
    ...noted(`curl -s -H "Authorization: Bearer ${viewer}" "${url}/v1/datasets"`),
    ...noted(
      `curl -s -H "Authorization: Bearer ${caseworker}" "${url}/v1/datasets/social_protection/entities/households/records?district=willowbank&limit=5"`,
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${caseworker}" "${url}/v1/datasets/social_protection/entities/households/records/hh-1033?expand=members"`,
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${caseworker}" -H "Data-Purpose: ${PURPOSE}" "${url}/v1/datasets/civil_registry/entities/persons/records?person_id=per-10001"`,
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${caseworker}" "${url}/v1/datasets/civil_registry/entities/persons/records"`,
      '400 auth.purpose_required',
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${viewer}" "${url}/v1/datasets/social_protection/entities/households/records"`,
      '403 auth.scope_denied',
    ),
  ];
  const aggregateRequests = [
    ...noted(`curl -s -H "Authorization: Bearer ${analyst}" "${aggregates}"`),
    ...noted(
      `curl -s -H "Authorization: Bearer ${analyst}" "${aggregates}/payments_by_district?group_by=district,payment_status"`,
      'small groups masked',
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${analyst}" -H "Accept: text/csv" "${url}/v1/datasets/health_facilities/aggregates/beds_by_district"`,
    ),
    ...noted(
      `curl -s -H "Authorization: Bearer ${analyst}" "${aggregates}/households_by_district?f=sdmx-json"`,
      'small groups omitted',
    ),
  ];
  const metadataRequests = [
    ...noted(`curl -s -H "Authorization: Bearer ${viewer}" "${url}/metadata/dcat"`),
    ...noted(`curl -s -H "Authorization: Bearer ${viewer}" "${url}/metadata/evidence-offerings"`),
  ];
  const indent = (lines: string[]) => lines.map((line) => `  ${line}`);
  return [
    'Try:',
    ...indent(requests),
    'Aggregates (analyst: aggregate scopes, no rows), as JSON, CSV and SDMX-JSON 2.1:',
    ...indent(aggregateRequests),
    'Metadata (scoped to the caller; DCAT-AP, BRegDCAT-AP, SHACL, ODRL and CPSV-AP as JSON-LD):',
    ...indent(metadataRequests),
    `  ${url}/docs   (in a browser; paste a key to browse the API)`,
  ];
}

/** The banner lines for the optional PostgreSQL dataset (DATABASE_URL). */
export function postgresExamples(url: string, caseworker: string): string[] {
  const births = `${url}/v1/datasets/vital_events/entities`;
  return [
    'PostgreSQL (DATABASE_URL): schema ambit_demo, served as a snapshot (births) and live (births_live):',
    `  curl -s -H "Authorization: Bearer ${caseworker}" "${births}/births/records?district=lakeside&birth_date.gte=2025-06-01&limit=5"`,
    `  curl -s -H "Authorization: Bearer ${caseworker}" "${births}/births_live/records/br-20042"`,
  ];
}
