// `ambit metadata validate --manifest F`: checks a manifest (shape, references, offering access) and lists every problem.
import { loadManifestFile } from '../../relay/metadata/load-manifest.ts';
import type { Command } from '../cli-io.ts';
import { counted } from '../counted.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';
import { reportMetadataError } from './metadata-publish.ts';

export const metadataValidate: Command = async (args, io) => {
  let flags: { manifest?: string };
  try {
    flags = parseFlags(args, { manifest: { type: 'string' } });
  } catch (error) {
    return reportFlagError(io, error);
  }
  if (!flags.manifest) {
    return reportFlagError(io, '--manifest is required');
  }
  try {
    const { manifest, digest } = loadManifestFile(flags.manifest);
    const entities = manifest.datasets.reduce((sum, dataset) => sum + dataset.entities.length, 0);
    const offerings = manifest.datasets.reduce((sum, dataset) => sum + dataset.evidence_offerings.length, 0);
    io.out(
      `ok: ${flags.manifest} (${counted(manifest.datasets.length, 'dataset')}, ${counted(entities, 'entity', 'entities')}, ${counted(offerings, 'evidence offering')}, ${counted(manifest.forms.length, 'form')})`,
    );
    io.out(`digest: ${digest}`);
    return 0;
  } catch (error) {
    return reportMetadataError(error, flags.manifest, io.err);
  }
};
