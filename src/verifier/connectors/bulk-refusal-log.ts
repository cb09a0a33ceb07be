// The warning that a source refuses the bulk (`.in`) form for a binding, whose values are then read one request each:
// once per connection, binding and reason, as a refusal repeats with every batch.
import type { Logger } from '../../platform/log.ts';
import type { SourceBindingConfig, SourceConnectionConfig } from '../config/schema.ts';
import type { HttpResponse } from './create-http-transport.ts';
import { problemCodeOf } from './relay-answers.ts';

/** Bulk refusals warned about, at most: the reasons come from the source's answers. */
const MAX_REFUSALS_TOLD = 256;

export type BulkRefusalLog = (
  config: SourceConnectionConfig,
  binding: SourceBindingConfig,
  response: HttpResponse,
) => void;

/** One warning per binding and reason: bulk_mode promises one request per batch, and this binding makes many. */
export function createBulkRefusalLog(logger: Logger | undefined): BulkRefusalLog {
  // Reasons already told, by connection, binding and code.
  const told = new Set<string>();
  return (config, binding, response) => {
    if (logger === undefined || told.size >= MAX_REFUSALS_TOLD) return;
    // The source's text goes to the log only when it looks like a problem code.
    const sent = problemCodeOf(response.body);
    const code = sent !== undefined && /^[A-Za-z0-9_.-]{1,64}$/.test(sent) ? sent : `http_${response.status}`;
    const key = JSON.stringify([
      binding.connection,
      binding.dataset,
      binding.entity,
      binding.lookup.field,
      code,
    ]);
    if (told.has(key)) return;
    told.add(key);
    logger.warn(
      {
        connection: binding.connection,
        dataset: binding.dataset,
        entity: binding.entity,
        field: binding.lookup.field,
        status: response.status,
        code,
        bulk_mode: config.bulk_mode,
      },
      'source refuses bulk reads for this binding: its values are read one request each',
    );
  };
}
