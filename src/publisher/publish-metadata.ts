// Manifest file -> static publication directory: load and check the manifest, build the model, render, write.
import { loadManifestFile } from '../relay/metadata/load-manifest.ts';
import { buildModelFromManifest } from '../relay/metadata/model/build-model-from-manifest.ts';
import { buildStaticArtefacts, type StaticArtefact } from './build-static-artefacts.ts';
import { writePublication } from './write-publication.ts';

export interface PublishOptions {
  /** Overrides the manifest `catalog.base_url` (where the directory will be hosted). */
  readonly baseUrl?: string | undefined;
  readonly onWritten?: (artefact: StaticArtefact) => void;
  /** A staging folder left in DIR (hidden, never served): the publication itself is complete. */
  readonly onWarning?: (message: string) => void;
}

/** Throws ConfigError (manifest problems, each with its code) or PublishError (output directory). */
export function publishMetadata(
  manifestPath: string,
  outDir: string,
  options: PublishOptions = {},
): StaticArtefact[] {
  const loaded = loadManifestFile(manifestPath);
  const model = buildModelFromManifest(loaded.manifest, { baseUrl: options.baseUrl });
  const artefacts = buildStaticArtefacts(model, { manifest: loaded.bytes });
  writePublication(outDir, artefacts, options.onWritten, options.onWarning);
  return artefacts;
}
