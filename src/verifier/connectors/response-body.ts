// A source response body collected as it arrives, bounded in bytes. Most answers come in one piece, kept as it is.
// Further pieces are copied into one buffer that doubles as it fills: a chunked answer cut into tiny chunks arrives
// as that many pieces, and kept apart they would cost a buffer object each (about 100 MB for 1 MiB of 1-byte chunks).

const EMPTY = Buffer.alloc(0);
/** The first size of the joined buffer: a few socket reads. */
const MIN_JOINED_BYTES = 64 * 1024;

export class ResponseBody {
  private readonly limit: number;
  private first: Buffer | undefined;
  private joined: Buffer | undefined;
  private size = 0;
  private refused = false;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Adds the next piece; false, keeping nothing more, once the body would be larger than the limit. */
  push(chunk: Buffer): boolean {
    const size = this.size + chunk.length;
    if (size > this.limit || this.refused) {
      this.refused = true;
      return false;
    }
    if (this.first === undefined) {
      this.first = chunk;
      this.size = size;
      return true;
    }
    let joined = this.joined;
    if (joined === undefined || size > joined.length) {
      const grown = Buffer.allocUnsafe(
        Math.min(this.limit, Math.max(size, 2 * (joined?.length ?? 0), MIN_JOINED_BYTES)),
      );
      (joined ?? this.first).copy(grown, 0, 0, this.size);
      joined = grown;
      this.joined = grown;
    }
    chunk.copy(joined, this.size);
    this.size = size;
    return true;
  }

  bytes(): Buffer {
    if (this.joined !== undefined) return this.joined.subarray(0, this.size);
    return this.first ?? EMPTY;
  }
}
