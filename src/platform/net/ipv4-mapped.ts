// IPv4-mapped IPv6 addresses read as the IPv4 address they carry.

/**
 * The address without brackets, lowercased, and an IPv4-mapped IPv6 address (`::ffff:a9fe:a9fe`,
 * `::ffff:169.254.169.254`) as its IPv4 address; anything else as it is.
 */
export function unmapIpv4(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const dotted = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(bare);
  if (dotted) return dotted[1] as string;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(bare);
  if (hex) {
    const high = Number.parseInt(hex[1] as string, 16);
    const low = Number.parseInt(hex[2] as string, 16);
    return [high >> 8, high & 255, low >> 8, low & 255].join('.');
  }
  return bare;
}
