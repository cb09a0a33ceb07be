// The rules a PostgreSQL connection URL must meet: postgres:// form, and TLS unless the server is on this machine.
// Messages never quote the URL: it usually carries a password.

const TLS_MODES = new Set(['require', 'verify-ca', 'verify-full']);

/** Why the URL is refused, or undefined. `envName` is the variable it came from, for the message. */
export function connectionUrlProblem(url: string, envName: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${envName} must hold a postgres:// or postgresql:// URL`;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `${envName} must hold a postgres:// or postgresql:// URL`;
  }
  const sslmode = parsed.searchParams.get('sslmode');
  if (!isLocalHost(effectiveHost(parsed)) && (sslmode === null || !TLS_MODES.has(sslmode))) {
    return `the server named in ${envName} is not on a loopback address, so the URL must require TLS (sslmode=require, verify-ca or verify-full)`;
  }
  return undefined;
}

/** The host pg will connect to: a `host` parameter (a Unix socket directory, say) wins over the authority. */
function effectiveHost(url: URL): string {
  return url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
}

/** Loopback names and addresses, a Unix socket directory, or no host at all (pg then uses a local socket). */
export function isLocalHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name === '' || name.startsWith('/')) return true;
  if (name === 'localhost' || name.endsWith('.localhost') || name === '::1') return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name) || /^::ffff:(127\.|7f[0-9a-f]{2}:)/.test(name);
}
