// PostgreSQL's lexical rules (src/backend/parser/scan.l), as far as they decide what is code and what is a literal
// or comment. The read-only check trusts this split, so each rule follows the server's, including the odd ones:
// string continuation, dollar tags of any length, nested comments, `--` ending at \r as well as \n.

export type SqlToken =
  /** An unquoted name or keyword, lower-cased as the server folds it (ASCII only). */
  | { readonly kind: 'word'; readonly text: string }
  /** A "quoted" name, its `""` undone. */
  | { readonly kind: 'quoted'; readonly text: string }
  | { readonly kind: 'string' }
  | { readonly kind: 'symbol'; readonly text: string };

/**
 * `standardConformingStrings` is the server setting of that name: off, a plain '...' literal takes backslash
 * escapes as E'...' does. Returns a reason instead of tokens when the text cannot be split as the server would.
 */
export function sqlTokens(sql: string, standardConformingStrings: boolean): SqlToken[] | string {
  const tokens: SqlToken[] = [];
  const plain: StringRule = standardConformingStrings ? 'standard' : 'escape';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i] as string;
    let end: number;
    if (isSpace(c)) {
      end = i + 1;
    } else if (sql.startsWith('--', i)) {
      end = lineEnd(sql, i);
    } else if (sql.startsWith('/*', i)) {
      end = commentEnd(sql, i);
    } else if (c === "'") {
      end = stringEnd(sql, i, plain);
      tokens.push({ kind: 'string' });
    } else if (c === '"') {
      end = quotedNameEnd(sql, i);
      if (end > 0) tokens.push({ kind: 'quoted', text: sql.slice(i + 1, end - 1).replaceAll('""', '"') });
    } else if (c === '$') {
      end = dollarEnd(sql, i, tokens);
    } else if (IDENT_START.test(c)) {
      end = wordEnd(sql, i);
      const word = foldCase(sql.slice(i, end));
      const prefixed = prefixedLiteral(sql, word, end, plain);
      if (prefixed === 'unicode name') return 'must not use Unicode-escaped identifiers (U&"...")';
      if (prefixed) {
        end = stringEnd(sql, prefixed.quote, prefixed.rule);
        tokens.push({ kind: 'string' });
      } else tokens.push({ kind: 'word', text: word });
    } else {
      // One character at a time: the server also ends an operator where `--` or `/*` begins.
      end = i + 1;
      tokens.push({ kind: 'symbol', text: c });
    }
    if (end < 0) return 'has an unterminated string, quoted identifier or comment';
    i = end;
  }
  return tokens;
}

/**
 * How a literal's body is read: `standard` ('' is a quote), `escape` (also backslash escapes), `bits` (B'..' and
 * X'..': a quote always ends the segment; a following quote starts a new literal).
 */
type StringRule = 'standard' | 'escape' | 'bits';

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
/** Any length: the server compares the whole tag. */
const DOLLAR_TAG = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/** The server's whitespace; anything else outside ASCII is part of a name (a no-break space included). */
function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
}

function isNewline(c: string | undefined): boolean {
  return c === '\n' || c === '\r';
}

/** Unquoted words fold ASCII letters only, as keywords do in any database (names compared further: comparedName). */
function foldCase(word: string): string {
  return word.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** Where a `--` comment stops: at its \n or \r (left for the caller), or at the end. */
function lineEnd(sql: string, start: number): number {
  let i = start;
  while (i < sql.length && !isNewline(sql[i])) i++;
  return i;
}

/** End of a /* comment *\/, which nests; -1 if unterminated. */
function commentEnd(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return -1;
}

function wordEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length && IDENT_PART.test(sql[i] as string)) i++;
  return i;
}

/** E'..', B'..', X'..', N'..' and U&'..' (U&".." is refused: escapes could spell any name). */
function prefixedLiteral(
  sql: string,
  word: string,
  end: number,
  plain: StringRule,
): { quote: number; rule: StringRule } | 'unicode name' | undefined {
  if (sql[end] === "'") {
    if (word === 'e') return { quote: end, rule: 'escape' };
    if (word === 'b' || word === 'x') return { quote: end, rule: 'bits' };
    if (word === 'n') return { quote: end, rule: plain };
  }
  if (word === 'u' && sql[end] === '&') {
    if (sql[end + 1] === '"') return 'unicode name';
    // Backslashes in U&'..' are escapes of its own, read after the literal ends; the server refuses U&'..' when
    // standard_conforming_strings is off.
    if (sql[end + 1] === "'") return { quote: end + 1, rule: 'standard' };
  }
  return undefined;
}

/** End of a literal opening at `quote`, continuation segments included; -1 if unterminated. */
function stringEnd(sql: string, quote: number, rule: StringRule): number {
  let i = quote + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (c === '\\' && rule === 'escape') {
      i += 2;
    } else if (c === "'") {
      if (rule !== 'bits' && sql[i + 1] === "'") {
        i += 2;
        continue;
      }
      // 'a'<newline>'b' is one literal 'ab', read on by the first segment's rule (so E'x'\n'\'' continues an
      // escape string).
      const next = continuationQuote(sql, i + 1);
      if (next < 0) return i + 1;
      i = next + 1;
    } else i++;
  }
  return -1;
}

/**
 * The quote that continues a literal closed just before `start`, or -1: spaces, tabs, form feeds and `--`
 * comments, then at least one newline, then whitespace and newline-ended `--` comments (no /* comments).
 */
function continuationQuote(sql: string, start: number): number {
  let i = start;
  for (;;) {
    const c = sql[i];
    if (c === ' ' || c === '\t' || c === '\f') i++;
    else if (sql.startsWith('--', i)) i = lineEnd(sql, i);
    else break;
  }
  if (!isNewline(sql[i])) return -1;
  for (;;) {
    if (isSpace(sql[i])) i++;
    else if (sql.startsWith('--', i)) {
      i = lineEnd(sql, i);
      if (i >= sql.length) return -1;
    } else break;
  }
  return sql[i] === "'" ? i : -1;
}

function quotedNameEnd(sql: string, start: number): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] !== '"') i++;
    else if (sql[i + 1] === '"') i += 2;
    else return i + 1;
  }
  return -1;
}

/** A $tag$..$tag$ literal, or a `$1` parameter or a stray `$` (a symbol). */
function dollarEnd(sql: string, start: number, tokens: SqlToken[]): number {
  DOLLAR_TAG.lastIndex = start;
  const tag = DOLLAR_TAG.exec(sql)?.[0];
  if (tag) {
    tokens.push({ kind: 'string' });
    const close = sql.indexOf(tag, start + tag.length);
    return close < 0 ? -1 : close + tag.length;
  }
  tokens.push({ kind: 'symbol', text: '$' });
  let i = start + 1;
  while (i < sql.length && /[0-9]/.test(sql[i] as string)) i++;
  return i;
}
