// Decodes a config file as UTF-8, refusing other encodings rather than replacing their bytes with U+FFFD.
import type { ConfigIssue } from './config-error.ts';

export function decodeUtf8(
  bytes: Uint8Array,
): { ok: true; text: string } | { ok: false; issue: ConfigIssue } {
  try {
    // A BOM is dropped, as YAML allows one.
    return { ok: true, text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return {
      ok: false,
      issue: {
        path: `line ${firstBadLine(bytes)}`,
        code: 'config.parse_error',
        message: 'the file is not UTF-8 text (a byte sequence that is not UTF-8): save it as UTF-8',
      },
    };
  }
}

/** The 1-based line of the first sequence that is not UTF-8 (a sequence never spans a line feed). */
function firstBadLine(bytes: Uint8Array): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let line = 1;
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i < bytes.length && bytes[i] !== 0x0a) continue;
    try {
      decoder.decode(bytes.subarray(start, i));
    } catch {
      return line;
    }
    line++;
    start = i + 1;
  }
  return line;
}
