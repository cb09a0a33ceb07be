// JSON.parse keeps the last of two members with one name; other parsers keep the first or refuse. A signed document
// that repeats a name can therefore mean two things, and a token's header or claims must mean one.

/**
 * The first member name that one object of `text` holds twice (names compared after unescaping), or undefined.
 * `text` must already have parsed as JSON. Iterative, so nesting thousands deep costs no stack.
 */
export function repeatedJsonMember(text: string): string | undefined {
  // One entry per open container: the names seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingName = false;
  for (let i = 0; i < text.length; i += 1) {
    const char = text[i];
    if (char === '"') {
      const end = stringEnd(text, i);
      const names = open.at(-1);
      if (expectingName && names) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        if (names.has(name)) return name;
        names.add(name);
      }
      expectingName = false;
      i = end;
    } else if (char === '{') {
      open.push(new Set());
      expectingName = true;
    } else if (char === '[') {
      open.push(null);
      expectingName = false;
    } else if (char === '}' || char === ']') {
      open.pop();
      expectingName = false;
    } else if (char === ',') {
      expectingName = open.at(-1) instanceof Set;
    }
  }
  return undefined;
}

/** Index of the quote closing the string that opens at `start`: the next one not escaped by a backslash. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  for (;;) {
    const quote = text.indexOf('"', i);
    if (quote === -1) return text.length - 1;
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === '\\') backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    i = quote + 1;
  }
}
