// `ambit keys generate --id X [--for relay|verifier]`: a new random API key, printed once with its fingerprint and
// commitment.
import { randomBytes } from 'node:crypto';
import { commitmentOf, fingerprintOf } from '../../platform/auth/api-key.ts';
import { RELAY_PRODUCT } from '../../relay/config/resolve-relay-secrets.ts';
import { ID_PATTERN } from '../../relay/config/schema.ts';
import { CREDENTIAL_ID_PATTERN } from '../../verifier/config/config-key.ts';
import { VERIFIER_PRODUCT } from '../../verifier/config/resolve-verifier-secrets.ts';
import type { Command } from '../cli-io.ts';
import { parseFlags, reportFlagError } from '../parse-flags.ts';

// A commitment names the service it is for, so one made for the relay is refused by a verifier config (and the
// other way round): the key is generated for one of them.
const PRODUCTS: Readonly<Record<string, string>> = { relay: RELAY_PRODUCT, verifier: VERIFIER_PRODUCT };

export const keysGenerate: Command = async (args, io) => {
  let flags: { id?: string; for?: string };
  try {
    flags = parseFlags(args, { id: { type: 'string' }, for: { type: 'string' } });
  } catch (error) {
    return reportFlagError(io, error);
  }
  const service = flags.for ?? 'relay';
  const product = Object.hasOwn(PRODUCTS, service) ? PRODUCTS[service] : undefined;
  if (product === undefined) {
    io.err('--for must be relay or verifier (the service whose config takes the commitment; default relay)');
    return 2;
  }
  // Each service's config takes the ids its own pattern allows: the verifier's admit `-` as well.
  const pattern = service === 'verifier' ? CREDENTIAL_ID_PATTERN : ID_PATTERN;
  if (!flags.id || !pattern.test(flags.id)) {
    return reportFlagError(io, `--id is required and must match ${pattern.source}`);
  }
  const key = randomBytes(32).toString('base64url');
  const fingerprint = fingerprintOf(key);
  io.out(`api_key_id=${flags.id}`);
  io.out(`api_key=${key}`);
  io.out(`fingerprint=${fingerprint}`);
  io.out(`commitment=${commitmentOf(product, flags.id, fingerprint)}`);
  return 0;
};
