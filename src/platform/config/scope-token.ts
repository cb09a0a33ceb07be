// A scope name as OAuth 2.0 defines one (RFC 6749 §3.3, `scope-token`): an OIDC token carries its scopes as one
// space-separated string, so a name with a space could never be granted by a token, and one with `"` or `\` could not
// appear in a `WWW-Authenticate` challenge that names it.
import { z } from 'zod';

export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

export const scopeToken = z
  .string()
  .max(256)
  .regex(SCOPE_TOKEN, 'must be a scope token: visible ASCII, no space, `"` or `\\` (RFC 6749)');
