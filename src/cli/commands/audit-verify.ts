// `ambit audit verify --file F --secret-env VAR [--rotated] [--genesis | --anchor HASH]`: checks an audit file's
// hash chain, and says where it starts: a file whose first records were removed still verifies on its own, so the
// answer tells the start of the chain from a continuation; --genesis requires the start, and --anchor a record noted
// from an earlier run, in the files or just before them (records removed from the end are seen no other way).

import { verifyAuditFile } from '../../platform/audit/audit-cli.ts';
import { HASH_PATTERN } from '../../platform/audit/audit-envelope.ts';
import { envValue } from '../../platform/config/env-value.ts';
import { ENV_VAR_NAME } from '../../platform/config/env-var-name.ts';
import { nameIsValueMessage } from '../../platform/config/name-is-value.ts';
import { MIN_SECRET_BYTES } from '../../platform/config/read-secret-env.ts';
import type { Command } from '../cli-io.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';

export const auditVerify: Command = async (args, io) => {
  let flags: { file?: string; 'secret-env'?: string; rotated?: boolean; genesis?: boolean; anchor?: string };
  try {
    flags = parseFlags(args, {
      file: { type: 'string' },
      'secret-env': { type: 'string' },
      rotated: { type: 'boolean' },
      genesis: { type: 'boolean' },
      anchor: { type: 'string' },
    });
  } catch (error) {
    return reportFlagError(io, error);
  }
  if (!flags.file || !flags['secret-env']) {
    return reportFlagError(io, '--file and --secret-env (naming a set environment variable) are required');
  }
  const name = flags['secret-env'];
  // Never repeated unless it is a variable name: given the secret itself (`--secret-env "$S"`), it would be printed.
  if (!ENV_VAR_NAME.test(name)) {
    io.err(
      '--secret-env takes the name of an environment variable (letters, digits and _), not the secret itself',
    );
    return 2;
  }
  const secret = envValue(io.env, name);
  if (!secret) {
    io.err(
      nameIsValueMessage(io.env, name) ??
        `environment variable ${name} (named by --secret-env) is not set or empty`,
    );
    return 2;
  }
  // No service writes with a shorter one: checked with it, every record would read as tampered with.
  const secretBytes = Buffer.byteLength(secret, 'utf8');
  if (secretBytes < MIN_SECRET_BYTES) {
    io.err(
      `environment variable ${name} (named by --secret-env) holds ${secretBytes} bytes: audit secrets hold at least ${MIN_SECRET_BYTES}`,
    );
    return 2;
  }
  if (flags.genesis && flags.anchor !== undefined) {
    io.err('--genesis and --anchor exclude each other');
    return 2;
  }
  if (flags.anchor !== undefined && !HASH_PATTERN.test(flags.anchor)) {
    io.err('--anchor must be a record_hash (64 lowercase hex digits)');
    return 2;
  }
  let result: ReturnType<typeof verifyAuditFile>;
  try {
    result = verifyAuditFile(flags.file, Buffer.from(secret, 'utf8'), {
      includeRotated: flags.rotated ?? false,
      ...(flags.genesis ? { startPrevHash: null } : {}),
      ...(flags.anchor !== undefined ? { anchor: flags.anchor } : {}),
    });
  } catch (error) {
    // A mistyped path or a folder: say which file (a rotated one, maybe), not a stack trace.
    const path = (error as { path?: unknown }).path;
    const file = typeof path === 'string' ? path : flags.file;
    io.err(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (result.ok) {
    const start =
      result.startsFrom === null
        ? 'from the start of the chain'
        : `continuing from ${result.startsFrom} (earlier records are not in ${flags.rotated ? 'these files' : 'this file'})`;
    io.out(`ok: ${result.count} ${result.count === 1 ? 'record' : 'records'} verified, ${start}`);
    // Records removed from the end leave a chain that verifies: only this hash, noted and compared later, shows it.
    io.out(`last record_hash ${result.lastHash} (the --anchor of the records written after it)`);
    return 0;
  }
  io.err(
    result.line === 0
      ? `${result.file}: ${result.reason}`
      : `chain broken in ${result.file} at line ${result.line}: ${result.reason}`,
  );
  return 1;
};
