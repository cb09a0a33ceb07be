// A listener that could not bind, said in one line with the address: Node's own message ("listen EADDRINUSE:
// address already in use 127.0.0.1:4242") names neither what to do nor, in the demo, which listener it was.
import { bindsMayClash } from '../platform/config/bind-address.ts';

/** The address a failed `listen` named, as host:port (IPv6 in brackets); undefined for any other error. */
export function failedListenAddress(error: unknown): string | undefined {
  const { syscall, address, port } = (error ?? {}) as {
    syscall?: unknown;
    address?: unknown;
    port?: unknown;
  };
  // `bind`: a cluster worker's listen, refused by the primary that holds the shared handle.
  if ((syscall !== 'listen' && syscall !== 'bind') || typeof address !== 'string') return undefined;
  return `${address.includes(':') ? `[${address}]` : address}:${String(port)}`;
}

/** `cannot listen on <address>: <reason>` for a failed `listen`; undefined for any other error. */
export function listenProblem(error: unknown): string | undefined {
  const where = failedListenAddress(error);
  if (where === undefined) return undefined;
  const code = (error as { code?: unknown }).code;
  const reason =
    code === 'EADDRINUSE'
      ? 'the address is already in use (another process listens there)'
      : code === 'EACCES'
        ? 'permission denied (ports below 1024 need privileges)'
        : code === 'EADDRNOTAVAIL'
          ? 'no network interface of this machine has that address'
          : error instanceof Error
            ? error.message
            : String(error);
  return `cannot listen on ${where}: ${reason}`;
}

/**
 * Why a `--bind` cannot be used beside the config's admin listener, or undefined when it can. The config check
 * compares `server.bind` with `server.admin_bind`; `--bind` replaces `server.bind`, so it is compared before either
 * listener opens (else the admin listener fails as if another process held its port).
 */
export function bindFlagClash(bind: string | undefined, adminBind: string | undefined): string | undefined {
  if (bind === undefined || adminBind === undefined || !bindsMayClash(bind, adminBind)) return undefined;
  return `--bind ${bind} is the admin listener's address (server.admin_bind ${adminBind}): admin routes never share the public listener; choose another`;
}
