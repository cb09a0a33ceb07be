// Claim results in their negotiated format: the claim-result JSON or CCCEV JSON-LD. Shared by evaluation
// and render, so a rendered evaluation reads exactly as it did when it was made (with the CCCEV terms it was made
// with). Sets the headers and returns the
// body for the route to return: an async handler that returns the reply instead makes Fastify wait on it as a
// thenable (a stream-end listener per response).
import type { RouteReply } from '../../platform/http/route-types.ts';
import { addVary } from '../../platform/http/vary.ts';
import { CCCEV_MEDIA_TYPE } from '../config/schema.ts';
import type { ClaimResult } from '../evaluation/build-claim-result.ts';
import { type CccevTerms, cccevTermsOf, renderCccev } from '../evaluation/render-cccev.ts';
import type { VerifierRuntime } from '../verifier-runtime.ts';

export function resultsResponse(
  reply: RouteReply,
  runtime: VerifierRuntime,
  format: string,
  results: readonly ClaimResult[],
  /** The configuration's terms the evaluation was made with; the current ones when not kept. */
  terms?: CccevTerms,
) {
  addVary(reply.header('cache-control', 'no-store'), 'Accept');
  const body =
    format === CCCEV_MEDIA_TYPE ? renderCccev(results, terms ?? cccevTermsOf(runtime, results)) : { results };
  reply.header('content-type', format);
  // A Buffer keeps the media type exactly as negotiated (no charset parameter appended).
  return Buffer.from(JSON.stringify(body));
}
