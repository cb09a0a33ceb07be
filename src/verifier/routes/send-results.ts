// Claim results in their negotiated format: the claim-result JSON or CCCEV JSON-LD. Shared by evaluation
// and render, so a rendered evaluation reads exactly as it did when it was made. Sets the headers and returns the
// body for the route to return: an async handler that returns the reply instead makes Fastify wait on it as a
// thenable (a stream-end listener per response).
import type { RouteReply } from '../../platform/http/route-types.ts';
import { addVary } from '../../platform/http/vary.ts';
import { CCCEV_MEDIA_TYPE } from '../config/schema.ts';
import type { ClaimResult } from '../evaluation/build-claim-result.ts';
import { renderCccev } from '../evaluation/render-cccev.ts';
import type { VerifierRuntime } from '../verifier-runtime.ts';

export function resultsResponse(
  reply: RouteReply,
  runtime: VerifierRuntime,
  format: string,
  results: readonly ClaimResult[],
) {
  addVary(reply.header('cache-control', 'no-store'), 'Accept');
  const body =
    format === CCCEV_MEDIA_TYPE
      ? renderCccev(
          results,
          new Map([...runtime.catalog.claims].map(([id, claim]) => [id, claim.config])),
          runtime.config.evidence.service_id,
        )
      : { results };
  reply.header('content-type', format);
  // A Buffer keeps the media type exactly as negotiated (no charset parameter appended).
  return Buffer.from(JSON.stringify(body));
}
