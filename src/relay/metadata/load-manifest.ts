// Reads a metadata manifest: digest pin, YAML, schema version, shape and cross references, every issue at once.

import { createHash } from 'node:crypto';
import { ConfigError, type ConfigIssue } from '../../platform/config/config-error.ts';
import { parseStrictYaml } from '../../platform/config/parse-strict-yaml.ts';
import { MAX_CONFIG_FILE_BYTES, readBoundedFile } from '../../platform/config/read-bounded-file.ts';
import { decodeUtf8 } from '../../platform/config/read-utf8-text.ts';
import { validateConfig } from '../../platform/config/validate-config.ts';
import { yamlToPlain } from '../../platform/config/yaml-to-plain.ts';
import { checkManifest } from './check-manifest.ts';
import { MANIFEST_SCHEMA_VERSION, type Manifest, manifestSchema } from './manifest-schema.ts';

export interface LoadedManifest {
  readonly manifest: Manifest;
  /** The file as decoded (a byte order mark dropped). */
  readonly text: string;
  /** The file as read, which the publisher copies verbatim: `digest` is theirs. */
  readonly bytes: Buffer;
  /** `sha256:<hex>` of the file bytes. */
  readonly digest: string;
}

/** Manifest issue paths start with this, so they never read as relay config paths. */
export const MANIFEST_PATH_PREFIX = 'manifest';

const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function digestOf(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/**
 * `sourcePath` names the config key that pointed at the file (`metadata.source.path`), or '' when the file was
 * named on the command line.
 */
export function loadManifestFile(
  path: string,
  options: { expectedDigest?: string | undefined; sourcePath?: string } = {},
): LoadedManifest {
  const sourcePath = options.sourcePath ?? '';
  const read = readBoundedFile(path, MAX_CONFIG_FILE_BYTES);
  if (!read.ok) {
    const reason =
      read.errno === undefined
        ? `is ${read.reason}`
        : read.errno === 'ENOENT'
          ? 'does not exist'
          : 'cannot be read';
    throw new ConfigError([
      { path: sourcePath, code: 'metadata.manifest.file_not_found', message: `${path} ${reason}` },
    ]);
  }
  const { bytes } = read;
  const digest = digestOf(bytes);
  const expected = options.expectedDigest;
  if (expected !== undefined) {
    const digestPath = sourcePath === '' ? 'digest' : sourcePath.replace(/path$/, 'digest');
    if (!DIGEST.test(expected)) {
      throw new ConfigError([
        {
          path: digestPath,
          code: 'metadata.manifest.digest_invalid',
          message: 'must be sha256:<64 lowercase hex>',
        },
      ]);
    }
    if (expected !== digest) {
      throw new ConfigError([
        {
          path: digestPath,
          code: 'metadata.manifest.digest_mismatch',
          message: `${path} has digest ${digest}, not the pinned one`,
        },
      ]);
    }
  }
  // Bytes that are not UTF-8 are refused, as in a config, rather than read as U+FFFD into published texts.
  const decoded = decodeUtf8(bytes);
  if (!decoded.ok) {
    throw new ConfigError([
      {
        ...decoded.issue,
        path: `${MANIFEST_PATH_PREFIX} ${decoded.issue.path}`,
        code: 'metadata.manifest.parse_failed',
      },
    ]);
  }
  const text = decoded.text;
  return { manifest: parseManifestText(text), text, bytes, digest };
}

export function parseManifestText(text: string): Manifest {
  const { document, problems } = parseStrictYaml(text);
  if (problems.length > 0) {
    throw new ConfigError(
      problems.map((problem) => ({
        path:
          problem.line === undefined ? MANIFEST_PATH_PREFIX : `${MANIFEST_PATH_PREFIX} line ${problem.line}`,
        code: 'metadata.manifest.parse_failed',
        message: problem.message,
      })),
    );
  }
  const plain = yamlToPlain(document, text);
  if (!plain.ok) {
    throw new ConfigError(
      plain.problems.map((problem) => ({
        path:
          problem.line === undefined ? MANIFEST_PATH_PREFIX : `${MANIFEST_PATH_PREFIX} line ${problem.line}`,
        code: 'metadata.manifest.parse_failed',
        message: problem.message,
      })),
    );
  }
  const raw = plain.value;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError([
      {
        path: MANIFEST_PATH_PREFIX,
        code: 'metadata.manifest.validation_failed',
        message: 'the manifest must be a mapping',
      },
    ]);
  }
  const version = (raw as Record<string, unknown>).schema_version;
  if (version !== MANIFEST_SCHEMA_VERSION) {
    throw new ConfigError([
      {
        path: `${MANIFEST_PATH_PREFIX}.schema_version`,
        code: 'metadata.manifest.version_unsupported',
        message: `${JSON.stringify(version ?? null)} is not supported: use ${MANIFEST_SCHEMA_VERSION}`,
      },
    ]);
  }
  let manifest: Manifest;
  try {
    manifest = validateConfig(manifestSchema, raw);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ConfigError(error.issues.map(asManifestIssue));
  }
  const issues = checkManifest(manifest).map((issue) => ({
    ...issue,
    path: prefixed(issue.path),
  }));
  if (issues.length > 0) throw new ConfigError(issues);
  return manifest;
}

function asManifestIssue(issue: ConfigIssue): ConfigIssue {
  return { path: prefixed(issue.path), code: 'metadata.manifest.validation_failed', message: issue.message };
}

function prefixed(path: string): string {
  return path === '' ? MANIFEST_PATH_PREFIX : `${MANIFEST_PATH_PREFIX}.${path}`;
}
