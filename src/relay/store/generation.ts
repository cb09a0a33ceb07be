// A generation: every table snapshot loaded together, with the per-entity rendered-row caches.
import type { CatalogEntity } from '../catalog/catalog.ts';
import type { TableSnapshot } from './table-snapshot.ts';

export interface Generation {
  /** Digest of every table version: equal on replicas that loaded equal data. */
  readonly version: string;
  readonly loadedAt: number;
  readonly tables: ReadonlyMap<string, TableSnapshot>;
  table(datasetId: string, tableId: string): TableSnapshot;
  /** Rendered JSON of full rows per entity, filled on first use. */
  rowCache(entity: CatalogEntity): (string | undefined)[];
}

export function tableKey(datasetId: string, tableId: string): string {
  return `${datasetId}/${tableId}`;
}

export function createGeneration(
  version: string,
  loadedAt: number,
  tables: Map<string, TableSnapshot>,
): Generation {
  const caches = new Map<CatalogEntity, (string | undefined)[]>();
  const table = (datasetId: string, tableId: string): TableSnapshot => {
    const snapshot = tables.get(tableKey(datasetId, tableId));
    if (!snapshot) throw new TypeError(`table ${datasetId}/${tableId} is not loaded`);
    return snapshot;
  };
  return {
    version,
    loadedAt,
    tables,
    table,
    rowCache(entity) {
      let cache = caches.get(entity);
      if (!cache) {
        cache = new Array(table(entity.datasetId, entity.tableId).rowCount);
        caches.set(entity, cache);
      }
      return cache;
    },
  };
}
