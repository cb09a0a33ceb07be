// Node joins the values of a repeated header it has no rule for with ", ", so two `Data-Purpose` headers read as
// one purpose "a, b" that nobody sent, and it would be audited and forwarded as such; and it keeps only the first
// of two Authorization headers, where a proxy in front may have judged the other. Single-valued headers of ours
// are split back into their values here, which is what the routes and the credential reader refuse ("send one").
import type { IncomingMessage } from 'node:http';

const AUTHORIZATION = 'authorization';
const API_KEY = 'x-api-key';
const PURPOSE = 'data-purpose';

export function splitRepeatedHeaders(raw: IncomingMessage): void {
  // One header never needs the scan; a purpose may itself hold ", ", so the raw list decides.
  const purpose = raw.headers[PURPOSE];
  const joinedPurpose = typeof purpose === 'string' && purpose.includes(', ');
  const apiKey = raw.headers[API_KEY];
  const joinedKey = typeof apiKey === 'string' && apiKey.includes(',');
  if (!joinedPurpose && !joinedKey && raw.headers.authorization === undefined) return;
  const list = raw.rawHeaders;
  const purposes: string[] = [];
  const keys: string[] = [];
  const authorizations: string[] = [];
  for (let at = 0; at + 1 < list.length; at += 2) {
    const name = list[at] as string;
    const value = list[at + 1] as string;
    // Only names of the right length are lowered: this runs on every authenticated request.
    if (name.length === AUTHORIZATION.length) {
      if (name.toLowerCase() === AUTHORIZATION) authorizations.push(value);
    } else if (name.length === API_KEY.length) {
      if (joinedKey && name.toLowerCase() === API_KEY) keys.push(value);
    } else if (joinedPurpose && name.length === PURPOSE.length && name.toLowerCase() === PURPOSE) {
      purposes.push(value);
    }
  }
  const headers = raw.headers as Record<string, string | string[] | undefined>;
  if (purposes.length > 1) headers[PURPOSE] = purposes;
  if (keys.length > 1) headers[API_KEY] = keys;
  if (authorizations.length > 1) headers.authorization = authorizations;
}
