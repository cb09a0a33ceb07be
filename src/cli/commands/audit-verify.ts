// `ambit audit verify --file F --secret-env VAR [--rotated] [--genesis | --anchor HASH]`: checks an audit file's
// hash chain, and says where it starts: a file whose first records were removed still verifies on its own, so the
// answer tells the start of the chain from a continuation, and --genesis or --anchor make either a requirement.

import { verifyAuditFile } from '../../platform/audit/audit-cli.ts';
import { HASH_PATTERN } from '../../platform/audit/audit-envelope.ts';
import { envValue } from '../../platform/config/env-value.ts';
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
  const secret = envValue(io.env, flags['secret-env']);
  if (!secret) {
    // The variable's name only: --secret-env takes a name so that the secret stays out of the command line.
    io.err(`environment variable ${flags['secret-env']} (named by --secret-env) is not set or empty`);
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
      ...(flags.anchor !== undefined ? { startPrevHash: flags.anchor } : {}),
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
    return 0;
  }
  io.err(
    result.line === 0
      ? `${result.file}: ${result.reason}`
      : `chain broken in ${result.file} at line ${result.line}: ${result.reason}`,
  );
  return 1;
};
