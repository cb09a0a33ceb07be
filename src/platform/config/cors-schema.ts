// `server.cors` of the relay and the verifier. A browser's Origin header is `scheme://host[:port]`, host in lower
// case and a default port left out: an entry with a path, query or credentials could never equal it, so it is
// refused, and an entry's spelling is normalised to the header's (`https://App.example:443/` matches).
import { z } from 'zod';

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

function isOrigin(text: string): boolean {
  const url = parseUrl(text);
  return (
    url !== undefined &&
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    // Only `https://a.example` or `https://a.example/`: `https://a.example/.` and `?` or `#` parse alike.
    /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\/?$/i.test(text)
  );
}

/** `*` or a `*.` host: entries are compared exactly, so one would match nothing while reading as a wildcard. */
const hasWildcard = (text: string): boolean => text.includes('*');

// The message never quotes the entry: like any value it may have come from an expanded variable.
const origin = z
  .string()
  .max(2048)
  .refine((text) => !hasWildcard(text), {
    message:
      'must be an origin: http or https, a host and an optional port, without a path; no wildcard: list each origin',
    abort: true,
  })
  .refine(isOrigin, 'must be an origin: http or https, a host and an optional port, without a path')
  .overwrite((text) => parseUrl(text)?.origin ?? text);

export function corsSchema() {
  return z
    .strictObject({ allowed_origins: z.array(origin).max(1000).default([]) })
    .default({ allowed_origins: [] })
    .describe('CORS is denied unless the origin is listed (`https://app.example.org`, no path).');
}
