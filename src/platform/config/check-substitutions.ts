// Whether each value a `${VAR}` expanded stayed text of one scalar. Expansion works on the text, so a value could
// otherwise change the document: `: ` or `[x, y]` add structure, ` #` cuts it short as a comment, a leading `*`,
// `&`, `!` or `|` makes an alias, anchor, tag or block scalar, and quotes or `\` rewrite it inside a quoted scalar.
import { CST, Lexer } from 'yaml';
import type { Substitution } from './expand-env.ts';

type SpanKind = 'plain' | 'block' | 'single' | 'double' | 'comment';

interface Span {
  readonly start: number;
  readonly end: number;
  readonly kind: SpanKind;
  /** A mapping key: its text is named in paths and messages. */
  key?: boolean;
}

export interface SubstitutionProblem {
  readonly line: number;
  readonly message: string;
}

export function checkSubstitutions(
  text: string,
  substitutions: readonly Substitution[],
): SubstitutionProblem[] {
  if (substitutions.length === 0) return [];
  const spans = scanSpans(text);
  const problems: SubstitutionProblem[] = [];
  for (const substitution of substitutions) {
    if (!staysText(text, substitution, spans)) {
      problems.push({
        line: substitution.line,
        // The name, never the value: it may be a secret.
        message:
          'the value of ' +
          substitution.name +
          ' would change the YAML structure, not only fill in text (`: `, ` #`, a flow comma or bracket, a leading' +
          ' indicator such as `*`, `&`, `!` or `|`, or a quote or `\\` inside quotes): quote the reference or change' +
          ' the value (not shown)',
      });
      continue;
    }
    if (inKey(text, substitution, spans)) {
      problems.push({
        line: substitution.line,
        message:
          'the value of ' +
          substitution.name +
          ' is used in a key: keys are named in messages and logs, and the value may be a secret; write the key' +
          ' itself (not shown)',
      });
    }
  }
  return problems;
}

/** Whether the (non-blank) text a substitution put in lies inside a mapping key. */
function inKey(text: string, { start, end }: Substitution, spans: readonly Span[]): boolean {
  const value = text.slice(start, end);
  const from = start + (value.length - value.trimStart().length);
  if (from >= end - (value.length - value.trimEnd().length)) return false;
  const span = spanAt(spans, from);
  return span?.key === true && span.end > from;
}

function staysText(text: string, { start, end }: Substitution, spans: readonly Span[]): boolean {
  const value = text.slice(start, end);
  // A plain scalar drops surrounding blanks without changing anything else.
  const from = start + (value.length - value.trimStart().length);
  const to = end - (value.length - value.trimEnd().length);
  // Trailing blanks would turn a `#` written right after the reference into the start of a comment.
  const after = spanAt(spans, end);
  if (to < end && after?.start === end && after.kind === 'comment') return false;
  if (from >= to) return true;
  const span = spanAt(spans, from);
  if (span === undefined || to > span.end) return false;
  switch (span.kind) {
    case 'comment':
      // Inside a comment written in the file, not one the value itself starts (`#1`, ` #1`).
      return span.start < start;
    case 'plain':
    case 'block':
      return true;
    case 'single':
      return start > span.start && end < span.end && !value.includes("'");
    case 'double':
      return start > span.start && end < span.end && !/["\\]/.test(value) && !escapedAt(text, start);
  }
}

/** Whether an odd run of backslashes ends at `offset`, so the value's first character would be read as an escape. */
function escapedAt(text: string, offset: number): boolean {
  let count = 0;
  while (offset - count - 1 >= 0 && text[offset - count - 1] === '\\') count++;
  return count % 2 === 1;
}

/** The last span starting at or before `offset` (spans are in text order and do not overlap). */
function spanAt(spans: readonly Span[], offset: number): Span | undefined {
  let low = 0;
  let high = spans.length - 1;
  let found: Span | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = spans[middle] as Span;
    if (span.start <= offset) {
      found = span;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}

/**
 * Scalars and comments of the text with their offsets, from the yaml library's lexer. Its control tokens (document
 * mode, flow error end, and the marker before a plain scalar or block scalar body) stand for no source text.
 */
function scanSpans(text: string): Span[] {
  const spans: Span[] = [];
  let offset = 0;
  let atScalar = false;
  let afterBlockHeader = false;
  // A scalar followed by nothing but blanks so far (a `:` next makes it a key), and a `?` waiting for its key.
  let lastScalar: Span | undefined;
  let explicitKey = false;
  const pushScalar = (span: Span) => {
    if (explicitKey) span.key = true;
    explicitKey = false;
    spans.push(span);
    lastScalar = span;
  };
  for (const token of new Lexer().lex(text)) {
    if (atScalar) {
      if (afterBlockHeader) spans.push({ start: offset, end: offset + token.length, kind: 'block' });
      else pushScalar({ start: offset, end: offset + token.length, kind: 'plain' });
      atScalar = false;
      afterBlockHeader = false;
      offset += token.length;
      continue;
    }
    const type = CST.tokenType(token);
    if (type === 'scalar') {
      atScalar = true;
      continue;
    }
    if (type === 'doc-mode' || type === 'flow-error-end') continue;
    if (type === 'block-scalar-header') afterBlockHeader = true;
    if (type === 'map-value-ind' && lastScalar !== undefined) lastScalar.key = true;
    const kind = SPAN_KINDS[type ?? ''];
    if (kind === 'single' || kind === 'double')
      pushScalar({ start: offset, end: offset + token.length, kind });
    else {
      if (kind !== undefined) spans.push({ start: offset, end: offset + token.length, kind });
      if (type !== 'space') {
        lastScalar = undefined;
        // A `?` before a collection: that key is refused as such when the document is read.
        explicitKey = type === 'explicit-key-ind' || (explicitKey && type === 'newline');
      }
    }
    offset += token.length;
  }
  return spans;
}

const SPAN_KINDS: Readonly<Record<string, SpanKind>> = {
  comment: 'comment',
  'single-quoted-scalar': 'single',
  'double-quoted-scalar': 'double',
};
