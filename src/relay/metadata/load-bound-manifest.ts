// The manifest named by `metadata.source` in the relay config, loaded and checked against that config.
import { resolve } from 'node:path';
import { ConfigError, type ConfigIssue } from '../../platform/config/config-error.ts';
import { buildCatalog } from '../catalog/build-catalog.ts';
import type { RelayConfig } from '../config/schema.ts';
import { checkManifestBindings } from './check-manifest-bindings.ts';
import { type LoadedManifest, loadManifestFile } from './load-manifest.ts';

/**
 * Bindings are checked only when the config itself is sound (`configSound`): a catalogue cannot be built from a
 * config with unresolved tables or columns, and those issues are reported already.
 */
export function loadBoundManifest(
  config: RelayConfig,
  baseDir: string,
  configSound: boolean,
): { manifest: LoadedManifest | undefined; issues: ConfigIssue[] } {
  const source = config.metadata?.source;
  if (!source) return { manifest: undefined, issues: [] };
  let manifest: LoadedManifest;
  try {
    manifest = loadManifestFile(resolve(baseDir, source.path), {
      expectedDigest: source.digest,
      sourcePath: 'metadata.source.path',
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { manifest: undefined, issues: [...error.issues] };
  }
  const issues = configSound ? checkManifestBindings(manifest.manifest, buildCatalog(config)) : [];
  return { manifest, issues };
}
