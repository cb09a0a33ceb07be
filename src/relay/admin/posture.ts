// The operational posture and the admin capabilities: what an operator may know about a running relay, and
// nothing more. No secret, no file path, no address, no connection string, no environment variable name.
import { PACKAGE_INFO } from '../../platform/package-root.ts';
import type { LoadedRelayConfig } from '../config/load-relay-config.ts';
import type { RelayConfig } from '../config/schema.ts';
import { METRIC_PREFIX } from '../metrics/relay-metrics.ts';
import { refreshOf } from '../reload/refresh-scheduler.ts';
import type { ProcessStatus } from './admin-backend.ts';

export const POSTURE_TIERS = ['restricted'] as const;

export interface AdminRouteInfo {
  readonly method: string;
  readonly path: string;
  readonly scope: string | null;
}

export function buildCapabilities(
  loaded: LoadedRelayConfig,
  routes: readonly AdminRouteInfo[],
  processes: number,
): Record<string, unknown> {
  return {
    schema: 'ambit.relay.admin-capabilities/v1',
    product: 'ambit-relay',
    listeners: { public: true, admin: loaded.config.server.admin_bind !== undefined },
    routes,
    reload: {
      all: true,
      table: true,
      atomic: true,
      failed_reload_keeps_previous_data: true,
      refresh_modes: ['mtime', 'interval', 'manual'],
    },
    config: { verify: false, dry_run: false, apply: false },
    break_glass: false,
    supported_posture_tiers: [...POSTURE_TIERS],
    metrics: { format: 'prometheus-text/0.0.4', prefix: METRIC_PREFIX },
    processes,
  };
}

export function buildPosture(
  loaded: LoadedRelayConfig,
  statuses: readonly ProcessStatus[],
): Record<string, unknown> {
  const { config, secrets, manifest } = loaded;
  const refreshModes = { manual: 0, mtime: 0, interval: 0 };
  // `data.loaded_at` dates the snapshots only: a live table's rows are read from its database on every request.
  const materializations = { snapshot: 0, live: 0 };
  let tables = 0;
  for (const dataset of config.datasets) {
    for (const table of dataset.tables) {
      tables++;
      refreshModes[refreshOf(dataset, table).mode]++;
      // The loaded config states every table's effective materialization (its dataset's default applied).
      materializations[table.materialization ?? 'snapshot']++;
    }
  }
  const loadedAt = statuses.map((status) => status.loadedAt).filter((at) => at !== undefined);
  const generations = new Set(statuses.map((status) => status.generation));
  // Without a manifest the runtime config's catalog publishes every artefact.
  const standards = manifest?.manifest.catalog.standards ?? { dcat: true, shacl: true, json_schema: true };
  return {
    schema: 'ambit.relay.posture/v1',
    tier: 'restricted',
    component: 'ambit-relay',
    build: {
      package: PACKAGE_INFO.name,
      version: PACKAGE_INFO.version,
      runtime: `node ${process.versions.node}`,
    },
    instance: instanceOf(config.instance),
    configuration: {
      source: 'file',
      // The file as written (what `sha256sum` prints for it): a value a `${VAR}` brings in is not covered, so a
      // weak secret expanded into the config cannot be guessed offline from this digest.
      last_config_hash: `sha256:${loaded.sourceDigest}`,
      // Keys and configuration apply at start; data reloads without a restart.
      dynamic_reload_supported: false,
      data_reload_supported: true,
    },
    runtime: {
      auth_mode: config.auth.mode,
      // Running now, and configured: they differ while a worker is being restarted.
      processes: statuses.filter((status) => status.running).length,
      processes_configured: statuses.length,
      admin_listener: config.server.admin_bind !== undefined,
    },
    relay: {
      datasets: config.datasets.length,
      tables,
      entities: config.datasets.reduce((sum, dataset) => sum + dataset.entities.length, 0),
      aggregates: config.datasets.reduce((sum, dataset) => sum + dataset.aggregates.length, 0),
      metadata_manifest: manifest !== undefined,
      provenance: false,
      refresh_modes: refreshModes,
      materializations,
    },
    // The documents the metadata surface serves (`/metadata` always; the others unless the manifest withdraws them).
    standards_artifacts: {
      metadata_index: true,
      dcat_ap: standards.dcat,
      bregdcat_ap: standards.dcat,
      shacl: standards.shacl,
      json_schema: standards.json_schema,
    },
    data: {
      ready: statuses.every((status) => status.ready),
      // One value when every process serves the same data; null while they differ (during a reload).
      generation: generations.size === 1 ? (statuses[0]?.generation ?? null) : null,
      loaded_at: loadedAt.length === 0 ? null : new Date(Math.min(...loadedAt)).toISOString(),
    },
    audit: {
      sink: config.audit.sink,
      write_policy: config.audit.write_policy,
      include_health: config.audit.include_health,
    },
    security: {
      openapi_requires_auth: config.server.openapi_requires_auth,
      cors_allowed_origins: config.server.cors.allowed_origins.length,
      trust_proxy: config.server.trust_proxy.enabled,
      cursor_secret: secrets.cursorSecretDerived ? 'derived_from_audit_secret' : 'configured',
      api_keys: secrets.apiKeys.length,
      request_timeout_ms: config.server.request_timeout,
      max_connections: config.server.max_connections,
    },
  };
}

/** The instance's public identity: each name the config gives, as a plain name or `redacted`. */
function instanceOf(instance: RelayConfig['instance']): Record<string, string> {
  const named: Record<string, string> = { id: plainName(instance?.id ?? 'ambit-relay-local') };
  for (const key of ['environment', 'owner', 'jurisdiction'] as const) {
    const value = instance?.[key];
    if (value !== undefined) named[key] = plainName(value);
  }
  return named;
}

/**
 * A name from the config as it is when it is a plain one (letters, digits, space, `.`, `_`, `-`), else `redacted`:
 * free text expanded from `${VAR}` or typed in may hold a URL with a password, a connection string or a path.
 */
function plainName(value: string): string {
  return /^[\p{L}\p{N}][\p{L}\p{N} ._-]{0,63}$/u.test(value) ? value : 'redacted';
}
