// Relationship reads: belongs_to and has_one return one record, has_many a paginated collection.
import type { FastifyInstance } from 'fastify';
import { requireScope } from '../../platform/auth/require-scope.ts';
import { isNotModified, strongEtag } from '../../platform/http/etag.ts';
import { quoted } from '../../platform/http/quote-client-text.ts';
import { addVary } from '../../platform/http/vary.ts';
import type { CatalogEntity } from '../catalog/catalog.ts';
import { relayProblem } from '../problems.ts';
import { intentDigest } from '../query/cursor.ts';
import { type Related, relatedOf, relatedRows } from '../query/expand-rows.ts';
import { parseLimit, type QueryParams, reserved } from '../query/parse-collection-query.ts';
import { rowJson } from '../query/render-rows.ts';
import { firstAfter } from '../query/run-collection.ts';
import { auditFacts, type RelayRuntime } from '../relay-runtime.ts';
import { nextLink } from './next-link.ts';
import { findRow, notModified, PAGE_VARY, sendJson, shapeOf, sortedQuery } from './records.ts';
import { renderPage } from './render-page.ts';
import { lookupEntity, readPurpose, requireGeneration, requireReadableById } from './resolve-entity.ts';

interface RelationshipParams {
  dataset_id: string;
  entity: string;
  id: string;
  relationship: string;
}

export function registerRelationshipRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  app.get<{ Params: RelationshipParams }>(
    '/v1/datasets/:dataset_id/entities/:entity/records/:id/relationships/:relationship',
    async (request, reply) => {
      // A has_many page binds its cursors to the credential and the purpose, as a records page does.
      addVary(reply, ...PAGE_VARY);
      const facts = auditFacts(request);
      facts.endpointKind = 'rows';
      const principal = await runtime.authenticate(request);
      const { dataset_id, entity: entityName, id, relationship: name } = request.params;
      // An unknown relationship name is reported like an unknown entity: before the read scope.
      const entity = lookupEntity(runtime.catalog, principal, dataset_id, entityName, 'rows');
      facts.datasetId = entity.datasetId;
      facts.entity = entity;
      facts.recordId = id;
      if (!entity.relationships.has(name)) {
        throw relayProblem('schema.unknown_resource', `entity ${entity.name} has no relationship ${name}`);
      }
      // Only a declared name reaches the audit record: an unknown one is the client's text (maybe an identifier).
      facts.relationship = name;
      requireScope(principal, entity.scopes.rows);
      const related = relatedOf(runtime.catalog, entity, name);
      requireScope(principal, related.target.scopes.rows);
      facts.scopesUsed = [entity.scopes.rows, related.target.scopes.rows];
      const params = request.query as QueryParams;
      facts.query = params;
      const purpose = readPurpose(request, [entity, related.target]);
      // The source record is read by its id, as on the record route.
      requireReadableById(entity);
      const many = related.relationship.kind === 'has_many';
      // Read before the names are checked: `limit.eq` beside `limit` is a repeat, not another parameter.
      const limitParam = many ? reserved(params, 'limit') : undefined;
      const cursor = many ? reserved(params, 'cursor') : undefined;
      for (const param of Object.keys(params)) {
        if (!many || (param !== 'limit' && param !== 'cursor')) {
          throw relayProblem(
            'filter.not_allowed',
            `parameter ${quoted(param)} is not accepted on this relationship`,
          );
        }
      }
      const limit = parseLimit(limitParam, related.target.api.defaultLimit, related.target.api.maxLimit);
      const generation = requireGeneration(runtime.state);
      const row = findRow(entity, generation, id);
      const target = generation.table(related.target.datasetId, related.target.tableId);
      const source = generation.table(entity.datasetId, entity.tableId);
      const rows = relatedRows(generation, entity, related, row);
      if (!many) {
        const first = rows[0];
        if (first === undefined)
          throw relayProblem('schema.unknown_resource', `no related ${related.target.name} record`);
        const etag = strongEtag([
          'relationship',
          entity.datasetId,
          entity.name,
          id,
          name,
          source.version,
          target.version,
          relationshipShape(entity, related),
        ]);
        if (isNotModified(request, etag)) return notModified(reply, etag);
        facts.rowCount = 1;
        reply.header('etag', etag);
        return sendJson(reply, rowJson(related.target, target, generation, first));
      }
      const intent = intentDigest([
        'relationship',
        entity.datasetId,
        entity.name,
        id,
        name,
        // Another declaration of the link or of the target is another walk, as for records cursors.
        relationshipShape(entity, related),
        purpose ?? null,
        principal.credentialTag,
      ]);
      const afterRow =
        cursor === undefined
          ? -1
          : runtime.cursors.decode(cursor, intent, `${source.version}.${target.version}`);
      const etag = strongEtag([
        'relationship',
        entity.datasetId,
        entity.name,
        id,
        name,
        source.version,
        target.version,
        relationshipShape(entity, related),
        sortedQuery(params),
        // Bound to what the page's cursor is bound to and signed with (see the records route).
        purpose ?? null,
        principal.credentialTag,
        runtime.cursors.keyId,
      ]);
      if (isNotModified(request, etag)) return notModified(reply, etag);
      const start = firstAfter(rows, afterRow);
      const pageRows = Array.from(rows.subarray(start, start + limit));
      const hasMore = start + limit < rows.length;
      facts.rowCount = pageRows.length;
      const last = pageRows[pageRows.length - 1];
      const nextCursor =
        hasMore && last !== undefined
          ? runtime.cursors.encode({ i: intent, g: `${source.version}.${target.version}`, p: last })
          : undefined;
      reply.header('etag', etag);
      if (nextCursor) reply.header('link', `<${nextLink(request, nextCursor)}>; rel="next"`);
      const items = pageRows.map((r) => rowJson(related.target, target, generation, r));
      return sendJson(reply, renderPage(items, hasMore, nextCursor));
    },
  );
}

/**
 * What a relationship answer shows of the declarations: the link followed, the column its key is read from (a
 * belongs_to key is a field of the source, whose shape is otherwise not covered) and the target's fields.
 */
function relationshipShape(entity: CatalogEntity, { relationship, target }: Related): unknown[] {
  const holder = relationship.kind === 'belongs_to' ? entity : target;
  const keyColumn = holder.fieldByName.get(relationship.foreignKey)?.column;
  return [relationship.kind, relationship.target, relationship.foreignKey, keyColumn, shapeOf(target)];
}
