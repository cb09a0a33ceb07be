// What one `/metadata/*` document is to the relay and the static publisher: path, media type, accepted query,
// availability, landing link, published files and renderer.
import type { MetadataLinks } from '../model/metadata-links.ts';
import type { MetadataModel } from '../model/metadata-model.ts';
import type { LandingLink } from '../renderers/render-metadata-landing.ts';

export interface MetadataRouteContext {
  /** The caller's scoped view of the model: render only from this. */
  readonly view: MetadataModel;
  readonly links: MetadataLinks;
  readonly params: Readonly<Record<string, string>>;
  /** Only the route's declared query parameters, each a single non-empty value. */
  readonly query: Readonly<Record<string, string>>;
  /** The catalog-wide documents of this table, for the landing page. */
  readonly documents: readonly LandingLink[];
}

export type RouteParams = Readonly<Record<string, string>>;

export interface MetadataRoute {
  /** Fastify path; `:dataset_id` is the owning dataset when present (it scopes the audit record). */
  readonly path: string;
  /** One line for the runtime OpenAPI document. */
  readonly summary: string;
  /** Response media type; JSON is sent as `application/json; charset=utf-8`. */
  readonly mediaType: string;
  /** Accepted query parameters (any other answers 400 `filter.not_allowed`); absent: the query is ignored. */
  readonly query?: readonly string[];
  /**
   * Whether the catalog publishes this document at all (`catalog.standards`). When false the relay answers 404
   * `schema.unknown_resource`, the publisher writes no file and no landing link names it. Absent: always.
   */
  readonly available?: (model: MetadataModel) => boolean;
  /**
   * Documents listed in the `/metadata` landing links: catalog-wide ones, or one instance of a parameterised
   * route named by `params`.
   */
  readonly landing?: { readonly rel: string; readonly title: string; readonly params?: RouteParams };
  /**
   * Static publication: the file path of each instance (relative to the output directory) and the path
   * parameters of every instance in a model. Absent: the document is relay-only.
   */
  readonly publish?: {
    instances(model: MetadataModel): readonly RouteParams[];
    file(params: RouteParams): string;
  };
  /** Returns the document (serialised as JSON) or throws a catalogued problem. */
  render(context: MetadataRouteContext): unknown;
}

export const ONCE = () => [{}];
export const eachDataset = (model: MetadataModel) => model.datasets.map((d) => ({ dataset_id: d.id }));
export const eachEntity = (model: MetadataModel) =>
  model.datasets.flatMap((d) => d.entities.map((e) => ({ dataset_id: d.id, entity: e.name })));
/** A path parameter the route's path declares. */
export const param = (params: RouteParams, name: string) => params[name] as string;

/** Whether a route's document is published by this catalog (see `MetadataRoute.available`). */
export function isAvailable(route: MetadataRoute, model: MetadataModel): boolean {
  return route.available === undefined || route.available(model);
}
