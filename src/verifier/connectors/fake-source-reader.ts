// Test support: a source reader that records every call and settles values by their names.
import type { SourceBindingConfig } from '../config/schema.ts';
import { verifierProblem } from '../problems.ts';
import type { BulkLookup, BulkOutcome, SourceLookup, SourceReader } from './source-reader.ts';

export const binding = (connection: string, fields: string[] = ['deceased']): SourceBindingConfig => ({
  connector: 'registry_data_api',
  connection,
  dataset: 'civil',
  entity: 'persons',
  lookup: { input: 'target.identifiers.national_id', field: 'national_id' },
  fields,
});

export const PURPOSE = 'https://p.example/x';

export const lookupOf = (value: string, on: SourceBindingConfig, purpose = PURPOSE, requestId = 'r1') =>
  ({ binding: on, value, purpose, requestId }) satisfies SourceLookup;

/** A read trace that counts what it is told. */
export const readCounter = () => ({
  sent: 0,
  readSent() {
    this.sent++;
  },
});

/**
 * Bulk reads of limit 3, except on connection `single` (none). By value: `?…` stays unsettled by a bulk answer,
 * `missing` is not found, `down` fails its single read; a bulk read holding `refuse` is refused whole, and every
 * bulk read fails with `failBulk`. Every read tells its trace and its request counter, as a connector does when it
 * sends.
 */
export function fakeSourceReader(options: { failBulk?: boolean } = {}) {
  const singles: string[] = [];
  const singleLookups: SourceLookup[] = [];
  const bulks: BulkLookup[] = [];
  const base: SourceReader = {
    async read(request) {
      singles.push(`${request.binding.connection}:${request.value}`);
      singleLookups.push(request);
      request.trace?.readSent();
      request.requests?.requestSent();
      if (request.value === 'down') throw verifierProblem('source.unavailable', 'down');
      return { row: { national_id: request.value, via: 'single' }, sourceId: 's' };
    },
    bulkLimit: (on) => (on.connection === 'single' ? 0 : 3),
    async readMany(request) {
      bulks.push(request);
      request.trace?.readSent();
      request.requests?.requestSent();
      if (options.failBulk) throw verifierProblem('source.unavailable', 'down');
      const settled = new Map<string, BulkOutcome>();
      if (request.values.includes('refuse')) return settled;
      for (const value of request.values) {
        if (value.startsWith('?')) continue;
        settled.set(
          value,
          value === 'missing'
            ? { problem: verifierProblem('evidence.not_available', 'none') }
            : { record: { row: { national_id: value, via: 'bulk' }, sourceId: 's' } },
        );
      }
      return settled;
    },
    close() {},
  };
  return { base, singles, singleLookups, bulks };
}
