// `ambit keys generate --id X`: a new random API key, printed once with its fingerprint and commitment.
import { randomBytes } from 'node:crypto';
import { commitmentOf, fingerprintOf } from '../../platform/auth/api-key.ts';
import { RELAY_PRODUCT } from '../../relay/config/resolve-relay-secrets.ts';
import { ID_PATTERN } from '../../relay/config/schema.ts';
import type { Command } from '../cli-io.ts';
import { flagError, parseFlags } from '../parse-flags.ts';

export const keysGenerate: Command = async (args, io) => {
  let flags: { id?: string };
  try {
    flags = parseFlags(args, { id: { type: 'string' } });
  } catch (error) {
    io.err(flagError(error));
    return 2;
  }
  if (!flags.id || !ID_PATTERN.test(flags.id)) {
    io.err('--id is required and must match ^[a-z][a-z0-9_]*$');
    return 2;
  }
  const key = randomBytes(32).toString('base64url');
  const fingerprint = fingerprintOf(key);
  io.out(`api_key_id=${flags.id}`);
  io.out(`api_key=${key}`);
  io.out(`fingerprint=${fingerprint}`);
  io.out(`commitment=${commitmentOf(RELAY_PRODUCT, flags.id, fingerprint)}`);
  return 0;
};
