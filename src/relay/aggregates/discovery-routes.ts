// Aggregate discovery: the dataset's aggregates, one aggregate's structure, and measures and dimensions by id.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isNotModified, strongEtag } from '../../platform/http/etag.ts';
import { addVary, CREDENTIAL_HEADERS } from '../../platform/http/vary.ts';
import { relayProblem } from '../problems.ts';
import type { RelayRuntime } from '../relay-runtime.ts';
import { notModified } from '../routes/records.ts';
import { resolveDataset } from '../routes/resolve-entity.ts';
import {
  aggregateAuditFacts,
  lookupAggregate,
  requireDiscovery,
  visibleAggregates,
} from './authorize-aggregate.ts';
import { describeAggregate, mergedDimensions, mergedMeasures } from './describe-aggregate.ts';

type DatasetRequest = FastifyRequest<{ Params: { dataset_id: string; id?: string } }>;

export function registerAggregateDiscoveryRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  const { catalog } = runtime;
  const baseUrl = catalog.config.catalog.base_url.replace(/\/$/, '');
  const datasetUrl = (datasetId: string) => `${baseUrl}/v1/datasets/${datasetId}`;

  /** The dataset (scope before existence) and the aggregates the caller may discover in it. */
  const visible = async (request: DatasetRequest, reply: FastifyReply) => {
    // What is listed is what the caller's scopes reveal.
    addVary(reply, ...CREDENTIAL_HEADERS);
    const facts = aggregateAuditFacts(request);
    facts.endpointKind = 'aggregate_list';
    const principal = await runtime.authenticate(request);
    const dataset = resolveDataset(catalog, principal, request.params.dataset_id, 'metadata');
    facts.datasetId = dataset.id;
    const aggregates = visibleAggregates(dataset, principal);
    facts.scopesUsed = [
      ...new Set(aggregates.flatMap((aggregate) => requireDiscovery(principal, aggregate))),
    ];
    return { dataset, aggregates, facts };
  };

  app.get<{ Params: { dataset_id: string } }>(
    '/v1/datasets/:dataset_id/aggregates',
    async (request, reply) => {
      const { dataset, aggregates, facts } = await visible(request, reply);
      facts.rowCount = aggregates.length;
      const data = aggregates.map((aggregate) => describeAggregate(aggregate, baseUrl));
      return sendDiscovery(request, reply, {
        data,
        links: [{ rel: 'self', href: `${datasetUrl(dataset.id)}/aggregates` }],
      });
    },
  );

  app.get<{ Params: { dataset_id: string; aggregate_id: string } }>(
    '/v1/datasets/:dataset_id/aggregates/:aggregate_id/structure',
    async (request, reply) => {
      const facts = aggregateAuditFacts(request);
      facts.endpointKind = 'aggregate_list';
      const principal = await runtime.authenticate(request);
      const { dataset_id: datasetId, aggregate_id: aggregateId } = request.params;
      const aggregate = lookupAggregate(catalog, principal, datasetId, aggregateId, 'metadata');
      facts.datasetId = aggregate.datasetId;
      facts.aggregate = aggregate;
      facts.scopesUsed = requireDiscovery(principal, aggregate);
      return sendDiscovery(request, reply, describeAggregate(aggregate, baseUrl));
    },
  );

  for (const kind of ['measures', 'dimensions'] as const) {
    const merge = kind === 'measures' ? mergedMeasures : mergedDimensions;
    app.get<{ Params: { dataset_id: string } }>(
      `/v1/datasets/:dataset_id/${kind}`,
      async (request, reply) => {
        const { dataset, aggregates, facts } = await visible(request, reply);
        const data = merge(aggregates);
        facts.rowCount = data.length;
        return sendDiscovery(request, reply, {
          data,
          links: [{ rel: 'self', href: `${datasetUrl(dataset.id)}/${kind}` }],
        });
      },
    );
    app.get<{ Params: { dataset_id: string; id: string } }>(
      `/v1/datasets/:dataset_id/${kind}/:id`,
      async (request, reply) => {
        const { dataset, aggregates, facts } = await visible(request, reply);
        const item = merge(aggregates).find((entry) => entry.id === request.params.id);
        // Only what a visible aggregate declares exists for this caller.
        if (!item) {
          const what = kind === 'measures' ? 'measure' : 'dimension';
          throw relayProblem(
            'schema.unknown_aggregate',
            `no visible aggregate of ${dataset.id} has ${what} ${request.params.id}`,
          );
        }
        facts.rowCount = 1;
        return sendDiscovery(request, reply, {
          ...item,
          links: [
            { rel: 'self', href: `${datasetUrl(dataset.id)}/${kind}/${item.id}` },
            { rel: 'up', href: `${datasetUrl(dataset.id)}/${kind}` },
          ],
        });
      },
    );
  }
}

/** Discovery bodies carry a strong ETag of their content (they differ per caller only through visibility). */
function sendDiscovery(request: FastifyRequest, reply: FastifyReply, body: unknown): FastifyReply | unknown {
  const etag = strongEtag(['aggregate-discovery', body]);
  if (isNotModified(request, etag)) return notModified(reply, etag);
  reply.header('etag', etag);
  return body;
}
