// The item events of a batch still being answered wait for the batch's own event and go into the same append,
// built with the answer the batch was given. Written ahead of it, they could stand in the trail as evaluations
// answered with 200 while the batch's own record failed (a full disk) and the caller got 500 instead.
import type { RouteReply, RouteRequest } from '../../platform/http/route-types.ts';
import {
  type BatchItemAudit,
  buildBatchItemAuditEvent,
  type EvidenceAuditContext,
} from './build-evidence-audit-event.ts';

const held = new WeakMap<RouteRequest, readonly BatchItemAudit[]>();

/** Keeps a batch's item reports until its response is committed (takeBatchItemEvents). */
export function holdBatchItemEvents(request: RouteRequest, items: readonly BatchItemAudit[]): void {
  held.set(request, items);
}

/**
 * The held item events of the batch `request` answered by `reply`, in input order; none for any other request.
 * A batch answered otherwise than with its result (its client gone, a store failure) reached nobody with its
 * items: they carry that answer, as the items of a batch answered before they ended do.
 */
export function takeBatchItemEvents(
  request: RouteRequest,
  reply: RouteReply,
  contextFor: () => EvidenceAuditContext,
): Record<string, unknown>[] {
  const items = held.get(request);
  if (items === undefined) return [];
  held.delete(request);
  const answered =
    reply.statusCode === 200 ? undefined : { status: reply.statusCode, problemCode: request.ctx.errorCode };
  return items.map((item) => buildBatchItemAuditEvent(request, item, contextFor(), answered));
}
