// Verified bearer tokens by their text, so a busy client pays one signature check per token, not per request.
// Bounded by count and by the characters the kept tokens hold: an issuer's tokens can be large (many claims), and
// ten thousand of 60 KB would hold 600 MB.

/** Tokens kept at most. */
export const TOKEN_CACHE_MAX = 10_000;
/** Characters of kept tokens at most (16 Mi: two bytes each at worst). */
export const TOKEN_CACHE_MAX_CHARS = 16 * 1024 * 1024;

export class VerifiedTokenCache<T> {
  private readonly entries = new Map<string, T>();
  private chars = 0;

  get(token: string): T | undefined {
    return this.entries.get(token);
  }

  delete(token: string): void {
    if (this.entries.delete(token)) this.chars -= token.length;
  }

  /** Keeps `entry`, dropping the oldest kept first (Map order is insertion order) until both limits hold. */
  set(token: string, entry: T): void {
    this.delete(token);
    if (token.length > TOKEN_CACHE_MAX_CHARS) return;
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < TOKEN_CACHE_MAX && this.chars + token.length <= TOKEN_CACHE_MAX_CHARS) break;
      this.delete(oldest);
    }
    this.entries.set(token, entry);
    this.chars += token.length;
  }

  get size(): number {
    return this.entries.size;
  }

  get heldChars(): number {
    return this.chars;
  }
}
