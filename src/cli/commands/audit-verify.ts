// `ambit audit verify --file F --secret-env VAR`: checks an audit file's hash chain.
import { verifyAuditFile } from '../../platform/audit/audit-cli.ts';
import type { Command } from '../cli-io.ts';
import { flagError, parseFlags } from '../parse-flags.ts';

export const auditVerify: Command = async (args, io) => {
  let flags: { file?: string; 'secret-env'?: string; rotated?: boolean };
  try {
    flags = parseFlags(args, {
      file: { type: 'string' },
      'secret-env': { type: 'string' },
      rotated: { type: 'boolean' },
    });
  } catch (error) {
    io.err(flagError(error));
    return 2;
  }
  const secret = flags['secret-env'] ? io.env[flags['secret-env']] : undefined;
  if (!flags.file || !secret) {
    io.err('--file and --secret-env (naming a set environment variable) are required');
    return 2;
  }
  let result: ReturnType<typeof verifyAuditFile>;
  try {
    result = verifyAuditFile(flags.file, Buffer.from(secret, 'utf8'), {
      includeRotated: flags.rotated ?? false,
    });
  } catch (error) {
    // A mistyped path or a folder: say which file, not a stack trace.
    io.err(`cannot read ${flags.file}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  if (result.ok) {
    io.out(`ok: ${result.count} records verified`);
    return 0;
  }
  io.err(`chain broken in ${result.file} at line ${result.line}: ${result.reason}`);
  return 1;
};
