// OpenAPI path items of `GET /v1/datasets/{dataset_id}`, listed once per dataset with a visible entity.
import { jsonResponse, problemResponse } from './openapi-schemas.ts';

export function datasetPaths(datasetIds: ReadonlySet<string>): Record<string, unknown> {
  const paths: Record<string, unknown> = {};
  for (const id of datasetIds) {
    paths[`/v1/datasets/${id}`] = {
      get: {
        tags: [id],
        operationId: `${id}.dataset`,
        summary: `Dataset ${id}`,
        responses: {
          200: jsonResponse('Dataset summary', { $ref: '#/components/schemas/DatasetSummary' }),
          401: problemResponse('Not authenticated'),
          // An unknown dataset is refused like a hidden one.
          403: problemResponse('Scope denied'),
        },
      },
    };
  }
  return paths;
}

export function datasetSummarySchema() {
  return {
    type: 'object',
    required: ['dataset_id', 'title', 'links', 'entities'],
    properties: {
      dataset_id: { type: 'string' },
      title: { type: 'string' },
      links: { type: 'object', required: ['self'], properties: { self: { type: 'string', format: 'uri' } } },
      entities: { type: 'array', items: { type: 'string' }, description: 'The entities the caller may see' },
    },
  };
}
