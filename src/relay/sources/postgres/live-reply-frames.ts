// Cuts the byte stream a live connection receives into server messages: a message split across chunks is kept as
// its chunks and joined once whole; a data row too large to accept is dropped as its bytes arrive, never buffered.

const DATA_ROW = 0x44;
export const HEADER = 5;
/**
 * The largest server message accepted: a data row beyond it is skipped as it arrives (its read fails), any other
 * message gives the connection up rather than buffering without bound.
 */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

export interface ReplyFrames {
  /** Takes one chunk from the socket; throws on a reply that does not parse (the connection cannot be trusted). */
  receive(chunk: Buffer): void;
}

/**
 * `onMessage` gets each whole message: `start` is its first byte after the header (the type is at
 * `start - HEADER`), `end` its end. `onOversizedRow` hears of a data row past `MAX_MESSAGE_BYTES`, skipped.
 */
export function createReplyFrames(
  onMessage: (buffer: Buffer, start: number, end: number) => void,
  onOversizedRow: () => void,
): ReplyFrames {
  // Bytes of a message that has not fully arrived yet: kept as chunks, joined once the message is complete.
  let partial: Buffer[] = [];
  let partialBytes = 0;
  let needed = 0;
  // Bytes still to drop of a data row too large to accept, as they arrive.
  let skipping = 0;

  /** The length a message header announces (type byte, then its length counting itself), checked. */
  function messageEnd(buffer: Buffer, at: number): number {
    const length = buffer.readInt32BE(at + 1);
    if (length < 4 || (length > MAX_MESSAGE_BYTES && buffer[at] !== DATA_ROW)) {
      throw new Error(`the database sent a message of ${length} bytes, which a live read does not accept`);
    }
    return at + 1 + length;
  }

  return {
    receive(received) {
      let chunk = received;
      if (skipping > 0) {
        if (chunk.length <= skipping) {
          skipping -= chunk.length;
          return;
        }
        chunk = chunk.subarray(skipping);
        skipping = 0;
      }
      let buffer = chunk;
      if (partialBytes > 0) {
        partial.push(chunk);
        partialBytes += chunk.length;
        if (partialBytes < needed) return;
        buffer = Buffer.concat(partial, partialBytes);
        partial = [];
        partialBytes = 0;
      }
      let at = 0;
      while (buffer.length - at >= HEADER) {
        const end = messageEnd(buffer, at);
        if (end - at - 1 > MAX_MESSAGE_BYTES) {
          // A data row too large to accept (messageEnd refuses any other): never buffered, its read fails.
          onOversizedRow();
          if (end > buffer.length) {
            skipping = end - buffer.length;
            at = buffer.length;
            break;
          }
          at = end;
          continue;
        }
        if (end > buffer.length) break;
        onMessage(buffer, at + HEADER, end);
        at = end;
      }
      if (at < buffer.length) {
        const rest = buffer.subarray(at);
        partial.push(rest);
        partialBytes = rest.length;
        needed = rest.length >= HEADER ? messageEnd(rest, 0) : HEADER;
      }
    },
  };
}
