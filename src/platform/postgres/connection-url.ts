// The rules a PostgreSQL connection URL must meet: postgres:// form, one server the driver will really connect to,
// and (for the relay's sources) TLS unless the server is on this machine.
// The URL is judged as the driver reads it (pg-connection-string, the parser `pg` itself uses), so what is checked
// is what is connected to. Messages never quote the URL: it usually carries a password.
import { isIPv4, isIPv6 } from 'node:net';
import { parse } from 'pg-connection-string';

const TLS_MODES = new Set(['require', 'verify-ca', 'verify-full']);
/** Every mode libpq or the driver knows (the driver reads `no-verify` as TLS without checking the certificate). */
const KNOWN_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify'];

/**
 * Why the URL is refused, or undefined. `envName` is the variable it came from, for the message. With `remoteTls`
 * (the default) a server not on this machine must be reached over TLS.
 */
export function connectionUrlProblem(
  url: string,
  envName: string,
  options: { readonly remoteTls?: boolean } = {},
): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // `user:pa#ss@host` reads as host `user` with port `pa`, which no URL has: the cause is the password.
    if (unencodedUserInfo(url)) return percentEncodeProblem(envName);
    // `user@/db?host=/socket` (libpq's spelling) is no URL without a host: say what is missing.
    // `host:99999` leaves no URL either: the port is the cause, not the scheme.
    const port = /^postgres(?:ql)?:\/\/(?:[^@/?#]*@)?(?:\[[^\]/?#]*\]|[^:/?#[\]]*):(\d+)(?:[/?#]|$)/i.exec(
      url,
    );
    if (port !== null && Number(port[1]) > 65535) return `${envName} names a port beyond 65535`;
    if (/^postgres(?:ql)?:\/\/[^/?#]*@(?::\d*)?(?:[/?#]|$)/i.test(url)) {
      return `${envName} must name the server's host after the user name (for a Unix socket directory: user@localhost/db?host=/var/run/postgresql)`;
    }
    return `${envName} must hold a postgres:// or postgresql:// URL`;
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    return `${envName} must hold a postgres:// or postgresql:// URL`;
  }
  // A password with an unencoded `#`, `/` or `?` after an `@` ends the authority early: the URL then names a piece
  // of the password as its host, which connection errors (and the logs quoting them) would print.
  if (parsed.hash !== '' || parsed.pathname.includes('@') || parsed.search.includes('@')) {
    return percentEncodeProblem(envName);
  }
  // The driver keeps the last of repeated parameters, libpq-style tools may not: one reading only.
  const repeated = repeatedParameter(parsed.searchParams);
  if (repeated !== undefined)
    return `${envName} repeats the connection parameter ${repeated}: give each once`;
  // A mode the driver does not know is not refused by it: it would try TLS and fail at the first connection.
  const mode = parsed.searchParams.get('sslmode');
  if (mode !== null && !KNOWN_MODES.includes(mode)) {
    return `${envName} sets an unknown sslmode: use one of ${KNOWN_MODES.join(', ')}`;
  }
  // libpq connects to `hostaddr` rather than `host`; the driver ignores it, so the URL would say another server.
  if (parsed.searchParams.has('hostaddr')) {
    return `${envName} sets hostaddr, which the driver ignores: name the server in the host instead`;
  }
  let driver: ReturnType<typeof parse>;
  try {
    driver = parse(driverUrl(url));
  } catch (error) {
    return `the PostgreSQL driver cannot use the URL in ${envName}: ${parseFailure(error)}`;
  }
  const host = driver.host ?? '';
  // An empty host makes the driver fall back to PGHOST, then localhost: the URL would not say where it connects.
  if (host === '') return `${envName} must name the server's host (or a Unix socket directory with ?host=)`;
  if (host.includes(',')) return `${envName} names several hosts; the driver connects to one only: name one`;
  // The mode as given: the driver is handed `verify-full` for the modes it reads so (driverUrl), `prefer` too.
  const tls = TLS_MODES.has(String(parsed.searchParams.get('sslmode'))) && Boolean(driver.ssl);
  if (options.remoteTls !== false && !isLocalHost(host) && !tls) {
    return `the server named in ${envName} is not on a loopback address, so the URL must require TLS (sslmode=require, verify-ca or verify-full)`;
  }
  return undefined;
}

/** TLS modes the driver (pg 8) reads as `verify-full`, printing a multi-line warning to say so. */
const VERIFY_FULL_ALIASES = new Set(['prefer', 'require', 'verify-ca']);

/**
 * The URL as the driver is to be given it: a mode it reads as `verify-full` written so (what it does is unchanged,
 * and it says nothing), unless `uselibpqcompat=true` asks for libpq's reading. A URL that does not parse is
 * returned as it is, for the driver to refuse.
 */
export function driverUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  const mode = parsed.searchParams.get('sslmode');
  if (mode === null || !VERIFY_FULL_ALIASES.has(mode) || parsed.searchParams.get('uselibpqcompat') === 'true')
    return url;
  parsed.searchParams.set('sslmode', 'verify-full');
  return parsed.href;
}

function percentEncodeProblem(envName: string): string {
  return `${envName} has a \`#\`, or an \`@\` after the host: percent-encode special characters in the user name and password (\`@\` as %40, \`#\` as %23, \`/\` as %2F, \`?\` as %3F)`;
}

/** A postgres:// URL whose user name or password (before its last `@`) holds a `#`, `/` or `?` left unencoded. */
function unencodedUserInfo(url: string): boolean {
  const scheme = /^postgres(?:ql)?:\/\//i.exec(url);
  if (scheme === null) return false;
  const rest = url.slice(scheme[0].length);
  const at = rest.lastIndexOf('@');
  return at > 0 && /[#/?]/.test(rest.slice(0, at));
}

/** The first parameter name given more than once (quoted only when it is a plain name), or undefined. */
function repeatedParameter(params: URLSearchParams): string | undefined {
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (seen.has(name)) return /^[A-Za-z_]{1,40}$/.test(name) ? `\`${name}\`` : '(a name given twice)';
    seen.add(name);
  }
  return undefined;
}

/** The reason, without the file names or values the driver's own messages may hold. */
function parseFailure(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && code.startsWith('E'))
    return 'a certificate or key file it names cannot be read';
  const message = (error as { message?: unknown } | undefined)?.message;
  return typeof message === 'string' && message.includes('verify-ca')
    ? 'with uselibpqcompat=true, sslmode=verify-ca needs sslrootcert'
    : 'the driver refuses it';
}

/** `localhost` itself, loopback addresses, or a Unix socket directory. */
export function isLocalHost(host: string): boolean {
  const name = host.toLowerCase().replace(/^\[|\]$/g, '');
  if (name.startsWith('/')) return true;
  // Only `localhost` itself: a `*.localhost` name may be resolved through DNS to any address.
  if (name === 'localhost') return true;
  // Only what the socket layer takes as an address: a name merely shaped like one (`127.0.0.999`,
  // `::ffff:127.db.example.org`) is looked up through DNS, search domains included, and may lead anywhere.
  if (isIPv4(name)) return name.startsWith('127.');
  // A zone (`fe80::1%eth0`) names a link, never loopback.
  if (!isIPv6(name) || name.includes('%')) return false;
  const canonical = new URL(`http://[${name}]`).hostname;
  return canonical === '[::1]' || /^\[::ffff:7f[0-9a-f]{2}:/.test(canonical);
}
