// Per-caller views of the metadata model, keyed by what the caller's metadata scopes reveal, each with a small
// cache of rendered documents: callers with the same visibility share views, bodies and ETags.
import type { Principal } from '../../../platform/auth/principal.ts';
import { platformProblem } from '../../../platform/problem/platform-problems.ts';
import { canDiscover } from '../../aggregates/authorize-aggregate.ts';
import type { Catalog } from '../../catalog/catalog.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import { scopeMetadataModel } from '../model/scope-metadata-model.ts';

export interface RenderedDocument {
  readonly body: Buffer;
  readonly etag: string;
}

export interface MetadataView {
  readonly model: MetadataModel;
  /** The metadata scopes this view rests on, per dataset (sorted), for audit records. */
  readonly scopesByDataset: ReadonlyMap<string, readonly string[]>;
  /** Every scope of `scopesByDataset`, for routes about the whole catalogue. */
  readonly allScopes: readonly string[];
  /** Rendered documents by route and parameters; bounded (cleared when full). */
  readonly documents: Map<string, RenderedDocument>;
}

export interface MetadataViews {
  /** The caller's view; 403 `auth.scope_denied` when no entity metadata scope is held at all. */
  forPrincipal(principal: Principal): MetadataView;
}

const MAX_VIEWS = 256;
export const MAX_DOCUMENTS_PER_VIEW = 512;

export function createMetadataViews(model: MetadataModel, catalog: Catalog): MetadataViews {
  const views = new Map<string, MetadataView>();
  // An API key's scopes are one Set for the life of the process: its view is found without working it out again.
  // (OIDC principals are new for every token; remembering them would only grow the table.)
  const byKeyScopes = new WeakMap<ReadonlySet<string>, MetadataView>();
  const viewOf = (principal: Principal): MetadataView => {
    if (principal.authMode !== 'api_key') return resolve(principal);
    let view = byKeyScopes.get(principal.scopes);
    if (view === undefined) {
      view = resolve(principal);
      byKeyScopes.set(principal.scopes, view);
    }
    return view;
  };
  const resolve = (principal: Principal): MetadataView => {
    const visible = new Set<string>();
    const scopesByDataset = new Map<string, string[]>();
    for (const dataset of catalog.datasets.values()) {
      for (const entity of dataset.entities.values()) {
        const scope = entity.scopes.metadata;
        if (!principal.scopes.has(scope)) continue;
        visible.add(`${dataset.id}/${entity.name}`);
        const scopes = scopesByDataset.get(dataset.id) ?? [];
        if (!scopes.includes(scope)) scopes.push(scope);
        scopesByDataset.set(dataset.id, scopes);
      }
    }
    // An aggregate is described to whoever sees its dataset at all and may discover it through the API (its
    // aggregate scope, or its metadata scope with the source entity's): the documents name nothing more.
    const aggregates = new Set<string>();
    for (const dataset of catalog.datasets.values()) {
      if (!scopesByDataset.has(dataset.id)) continue;
      for (const aggregate of dataset.aggregates.values()) {
        if (canDiscover(principal, aggregate)) aggregates.add(`${dataset.id}/${aggregate.id}`);
      }
    }
    if (visible.size === 0) {
      throw platformProblem(
        'auth.scope_denied',
        'required scope: <dataset_id>:metadata on at least one dataset',
      );
    }
    const key = `${[...visible].join(',')}|${[...aggregates].join(',')}`;
    const cached = views.get(key);
    if (cached) return cached;
    const sorted = new Map([...scopesByDataset].map(([id, scopes]) => [id, scopes.sort()]));
    const view: MetadataView = {
      model: scopeMetadataModel(model, {
        dataset: (id) => scopesByDataset.has(id),
        entity: (datasetId, name) => visible.has(`${datasetId}/${name}`),
        aggregate: (datasetId, id) => aggregates.has(`${datasetId}/${id}`),
      }),
      scopesByDataset: sorted,
      allScopes: [...sorted.values()].flat(),
      documents: new Map(),
    };
    if (views.size >= MAX_VIEWS) views.clear();
    views.set(key, view);
    return view;
  };
  return { forPrincipal: viewOf };
}
