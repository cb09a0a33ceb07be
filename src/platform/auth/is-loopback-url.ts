// The "https unless loopback" rule for issuer and key URLs: recognises loopback hosts after URL normalisation.

/** True when the URL parses and its host is loopback: localhost (and *.localhost), 127.0.0.0/8 or ::1. */
export function isLoopbackUrl(url: string): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (host === '[::1]') return true;
  // The URL parser normalises IPv4 and IPv4-mapped IPv6 spellings (127.1, 0x7f.0.0.1, ::ffff:127.0.0.1),
  // so these two patterns cover them all.
  return (
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(host)
  );
}

/**
 * The rule itself: https, or http to a loopback host when `allowHttpLoopback`. Parsed, not prefix-matched:
 * `HTTPS://` is https, and `http://127.example.org` is not loopback. False for what does not parse.
 */
export function isAllowedFetchUrl(url: string, allowHttpLoopback: boolean): boolean {
  let protocol: string;
  try {
    protocol = new URL(url).protocol;
  } catch {
    return false;
  }
  return protocol === 'https:' || (protocol === 'http:' && allowHttpLoopback && isLoopbackUrl(url));
}
