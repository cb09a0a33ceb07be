// Duplicate object member names in a JSON text. JSON.parse keeps the last of them, while a proxy, a log reader or
// another parser in front of the service may read the first: `{"disclosure":"redacted","disclosure":"value"}`
// would mean one thing to them and another here. I-JSON (RFC 7493 section 2.3) forbids them; bodies holding
// them are refused.

/** Whether an object in `text`, which must be valid JSON (parse it first), names a member twice. */
export function hasDuplicateMember(text: string): boolean {
  return repeatedMember(text) !== undefined;
}

/** The first member name an object of `text` (valid JSON: parse it first) holds twice, compared unescaped. */
export function repeatedMember(text: string): string | undefined {
  // One entry per open container: the member names seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const char = text.charCodeAt(i);
    if (char === QUOTE) {
      // Skipped to its closing quote at once (a quote preceded by an odd run of backslashes is escaped).
      let end = text.indexOf('"', i + 1);
      while (end > 0 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
      if (end < 0) return undefined; // Not valid JSON: nothing more can be read of it.
      const start = i;
      i = end;
      if (!expectName) continue;
      expectName = false;
      // `"a"` and `"\u0061"` name the same member.
      const raw = text.slice(start + 1, end);
      const name = raw.includes('\\') ? (JSON.parse(text.slice(start, end + 1)) as string) : raw;
      const names = open[open.length - 1] as Set<string>;
      if (names.has(name)) return name;
      names.add(name);
    } else if (char === OPEN_BRACE) {
      open.push(new Set());
      expectName = true;
    } else if (char === OPEN_BRACKET) {
      open.push(null);
    } else if (char === CLOSE_BRACE || char === CLOSE_BRACKET) {
      open.pop();
      expectName = false;
    } else if (char === COMMA) {
      expectName = open[open.length - 1] instanceof Set;
    }
  }
  return undefined;
}

/** Whether the quote at `at` is escaped: an odd number of backslashes just before it. */
function isEscaped(text: string, at: number): boolean {
  let count = 0;
  for (let index = at - 1; text.charCodeAt(index) === BACKSLASH; index--) count++;
  return count % 2 === 1;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
