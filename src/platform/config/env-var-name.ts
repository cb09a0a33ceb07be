// Config keys that name an environment variable (`*_env`, `fingerprint.name`). Their message never quotes the value:
// a `${VAR}` written there by mistake has already been expanded, so the value is the secret itself.
import { z } from 'zod';

export const ENV_VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function envVarName() {
  return z.string().max(256).regex(ENV_VAR_NAME, {
    message:
      'must name an environment variable (letters, digits and _), not hold its value: write the name, not its expansion',
  });
}
