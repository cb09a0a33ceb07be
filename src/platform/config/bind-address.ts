// A listen address, `host:port` (IPv6 hosts in brackets), as the config's `bind` keys and `--bind` take it.
import { z } from 'zod';

const BIND = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** Whether `text` is host:port with a port from 0 to 65535 (0: any free port). */
export function isBindAddress(text: string): boolean {
  const port = BIND.exec(text)?.[2];
  return port !== undefined && Number(port) <= 65_535;
}

export function bindAddressSchema(example: string) {
  return z
    .string()
    .refine(isBindAddress, `must be host:port with a port from 0 to 65535, for example ${example}`);
}
