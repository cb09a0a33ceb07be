// `server.cors` of the relay and the verifier. A browser's Origin header is `scheme://host[:port]`, host in lower
// case and a default port left out: an entry with a path, query or credentials could never equal it, so it is
// refused, and an entry's spelling is normalised to the header's (`https://App.example:443/` matches).
import { z } from 'zod';

// The message never quotes the entry: like any value it may have come from an expanded variable.
const NOT_AN_ORIGIN = 'must be an origin: http or https, a host and an optional port, without a path';

const origin = z.string().transform((text, ctx) => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: NOT_AN_ORIGIN });
    return z.NEVER;
  }
  const bare =
    (url.protocol === 'https:' || url.protocol === 'http:') &&
    url.username === '' &&
    url.password === '' &&
    url.pathname === '/' &&
    !/[?#]/.test(text) &&
    // `https://a.example/` parses to the same URL as `https://a.example`; `https://a.example/.` does too.
    /^[a-z][a-z0-9+.-]*:\/\/[^/]*\/?$/i.test(text);
  if (!bare) {
    ctx.addIssue({ code: 'custom', message: NOT_AN_ORIGIN });
    return z.NEVER;
  }
  return url.origin;
});

export function corsSchema() {
  return z
    .strictObject({ allowed_origins: z.array(origin).default([]) })
    .default({ allowed_origins: [] })
    .describe('CORS is denied unless the origin is listed (`https://app.example.org`, no path).');
}
