// Audit lines are written as UTF-8. Bytes that are not UTF-8 would decode to U+FFFD, the same text a record holding
// U+FFFD hashes as, so a lenient decode would let such an edit verify: a line is decoded strictly.
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The line's text, or undefined when its bytes are not UTF-8. */
export function decodeUtf8Line(bytes: Uint8Array): string | undefined {
  try {
    return strict.decode(bytes);
  } catch {
    return undefined;
  }
}
