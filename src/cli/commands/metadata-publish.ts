// `ambit metadata publish --manifest F --out DIR`: writes the static metadata publication, one line per file.
import { ConfigError, formatIssue } from '../../platform/config/config-error.ts';
import { publishMetadata } from '../../publisher/publish-metadata.ts';
import { PublishError } from '../../publisher/write-publication.ts';
import { baseUrl as baseUrlRule } from '../../relay/metadata/manifest-service-schema.ts';
import type { Command } from '../cli-io.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';

export const metadataPublish: Command = async (args, io) => {
  let flags: { manifest?: string; out?: string; 'base-url'?: string };
  try {
    flags = parseFlags(args, {
      manifest: { type: 'string' },
      out: { type: 'string' },
      'base-url': { type: 'string' },
    });
  } catch (error) {
    return reportFlagError(io, error);
  }
  if (!flags.manifest || !flags.out) {
    return reportFlagError(io, '--manifest and --out are required');
  }
  const baseUrl = flags['base-url'];
  // The rule of the manifest's catalog.base_url, which this replaces: every link and IRI is built on it, and a
  // quote or a bracket in it would make the RDF documents' IRIs invalid.
  if (baseUrl !== undefined && !baseUrlRule.safeParse(baseUrl).success) {
    io.err(
      '--base-url must be an absolute http(s) URL without spaces, quotes or <>{}|\\^` (percent-encode them), and without a query, a fragment or a user name',
    );
    return 2;
  }
  try {
    const artefacts = publishMetadata(flags.manifest, flags.out, {
      baseUrl,
      onWritten: (artefact) => io.out(`wrote ${artefact.path} (${artefact.body.length} bytes)`),
      onWarning: (message) => io.err(`warning: ${message}`),
    });
    io.out(`published ${artefacts.length} files to ${flags.out}`);
    return 0;
  } catch (error) {
    return reportMetadataError(error, flags.manifest, io.err);
  }
};

export function reportMetadataError(error: unknown, manifest: string, err: (line: string) => void): number {
  if (error instanceof ConfigError) {
    err(`${manifest}: ${error.issues.length} problem${error.issues.length === 1 ? '' : 's'}`);
    for (const issue of error.issues) err(`  ${formatIssue(issue)}`);
    return 1;
  }
  if (error instanceof PublishError) {
    err(`publish failed: ${error.message}`);
    return 1;
  }
  throw error;
}
