// What route groups receive from the composition root: the catalogue, live state and the request stages.

import type { Principal } from '../platform/auth/principal.ts';
import type { RouteRequest } from '../platform/http/route-types.ts';
import type { Catalog, CatalogEntity } from './catalog/catalog.ts';
import type { CursorCodec } from './query/cursor.ts';
import type { RelayState } from './relay-state.ts';
import type { PostgresSources } from './sources/postgres/postgres-sources.ts';

export interface RelayRuntime {
  readonly catalog: Catalog;
  readonly state: RelayState;
  readonly cursors: CursorCodec;
  /** PostgreSQL sources: live tables are read through it on every request. */
  readonly postgres: PostgresSources;
  /** The caller's principal: at once for API keys, after the token check for OIDC. */
  authenticate(request: RouteRequest): Principal | Promise<Principal>;
}

/** Facts a route records for its audit event; redaction happens when the record is built. */
export interface RelayAuditFacts {
  endpointKind?: string;
  datasetId?: string;
  /** A table named by the route itself (the admin table reload), when no entity says which. */
  tableId?: string;
  entity?: CatalogEntity;
  relationship?: string;
  recordId?: string;
  scopesUsed?: string[];
  query?: Readonly<Record<string, string | string[] | undefined>>;
  rowCount?: number;
}

export function auditFacts(request: RouteRequest): RelayAuditFacts {
  return request.ctx.audit as RelayAuditFacts;
}
