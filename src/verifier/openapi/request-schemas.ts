// Request body schemas of the runtime OpenAPI document, generated from the schemas the routes parse with, so the
// document accepts exactly the bodies the server accepts (members, lengths, counts, unknown members refused).
import { type ZodType, z } from 'zod';
import { CCCEV_MEDIA_TYPE, CLAIM_RESULT_MEDIA_TYPE } from '../config/schema.ts';
import { batchEnvelopeSchema, batchItemSchema } from '../evaluation/parse-batch-request.ts';
import {
  claimRefSchema,
  evaluationBodySchema,
  targetSchema,
} from '../evaluation/parse-evaluation-request.ts';
import { renderBodySchema } from '../routes/render.ts';

type JsonSchema = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function jsonSchema(schema: ZodType): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}

/** A `format` member: any media type text is parsed (parameters in any case, quoted or not), then negotiated. */
function describeFormat(body: JsonSchema): JsonSchema {
  const properties = body.properties as Record<string, JsonSchema>;
  properties.format = {
    ...properties.format,
    description: 'A result format; 406 `claim.format_not_supported` for any other.',
    examples: [CLAIM_RESULT_MEDIA_TYPE, CCCEV_MEDIA_TYPE],
  };
  return body;
}

/** Claim references naming only the given claims (those the caller may evaluate), when there are any. */
function claimRef(claimIds: readonly string[]): JsonSchema {
  const schema = jsonSchema(claimRefSchema);
  if (claimIds.length === 0) return schema;
  const [byId, byObject] = schema.anyOf as [JsonSchema, JsonSchema & { properties: Record<string, object> }];
  return {
    anyOf: [
      { ...byId, enum: [...claimIds] },
      { ...byObject, properties: { ...byObject.properties, id: { type: 'string', enum: [...claimIds] } } },
    ],
  };
}

export function requestSchemas(claimIds: readonly string[], batchLimit: number): Record<string, JsonSchema> {
  const evaluation = describeFormat(jsonSchema(evaluationBodySchema));
  const evaluationProperties = evaluation.properties as Record<string, JsonSchema>;
  evaluationProperties.target = ref('Target');
  evaluationProperties.claims = { ...evaluationProperties.claims, items: ref('ClaimRef') };

  const item = jsonSchema(batchItemSchema);
  (item.properties as Record<string, JsonSchema>).target = ref('Target');
  const batch = describeFormat(jsonSchema(batchEnvelopeSchema));
  const batchProperties = batch.properties as Record<string, JsonSchema>;
  batchProperties.items = { type: 'array', minItems: 1, maxItems: batchLimit, items: item };
  batchProperties.claims = { ...batchProperties.claims, items: ref('ClaimRef') };

  return {
    Target: jsonSchema(targetSchema),
    ClaimRef: claimRef(claimIds),
    EvaluationRequest: evaluation,
    BatchEvaluationRequest: batch,
    RenderRequest: describeFormat(jsonSchema(renderBodySchema)),
  };
}
