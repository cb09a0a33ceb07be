// One linear pass over a worksheet's XML before read-excel-file decodes it. That decoder reads a sheet in chunks
// and, while a tag or a text run is unfinished, reads it again with every chunk, shrinking the chunk each time one
// takes long: a tag left open (`<mergeCell <mergeCell …`) or a tag of a few MB ran it for over a minute with the
// event loop blocked. So tags must close before the next `<`, and tags and text runs are bounded in length.

/** Longer than any tag a spreadsheet writer produces; the decoder still rereads a tag this long quickly. */
export const SHEET_MAX_TAG_CHARS = 256 * 1024;
/** Text between tags: a cell's text is at most 32,767 characters in Excel, a few times that once escaped. */
export const SHEET_MAX_TEXT_CHARS = 2 * 1024 * 1024;

export type MarkupFault =
  | { readonly kind: 'not_well_formed'; readonly why: string }
  | { readonly kind: 'tag' | 'text'; readonly chars: number };

const LT = 60;
const GT = 62;
const QUOTE = 34;
const APOSTROPHE = 39;
const BANG = 33;
const QUESTION = 63;

/**
 * The first fault of the sheet's markup, or undefined. A `<` starts markup wherever it occurs outside CDATA
 * sections, comments and processing instructions (text and attribute values cannot hold one), so a tag must end
 * at a `>` outside its quoted values before the next `<`.
 */
export function sheetMarkupFault(xml: string): MarkupFault | undefined {
  let at = 0;
  while (at < xml.length) {
    const open = xml.indexOf('<', at);
    const textEnd = open < 0 ? xml.length : open;
    if (textEnd - at > SHEET_MAX_TEXT_CHARS) return { kind: 'text', chars: textEnd - at };
    if (open < 0) return undefined;
    let end: number;
    let kind: 'tag' | 'text' = 'tag';
    const next = xml.charCodeAt(open + 1);
    if (next === BANG && xml.startsWith('<!--', open)) end = closing(xml, '-->', open + 4);
    else if (next === BANG && xml.startsWith('<![CDATA[', open)) {
      end = closing(xml, ']]>', open + 9);
      kind = 'text';
    } else if (next === QUESTION) end = closing(xml, '?>', open + 2);
    else end = tagEnd(xml, open);
    if (end < 0) {
      return { kind: 'not_well_formed', why: `markup opened at character ${open} is not closed` };
    }
    const limit = kind === 'tag' ? SHEET_MAX_TAG_CHARS : SHEET_MAX_TEXT_CHARS;
    if (end - open > limit) return { kind, chars: end - open };
    at = end;
  }
  return undefined;
}

/** Just past the `>` ending the tag opened at `open`, or -1 when a `<` or the end of the text comes first. */
export function tagEnd(xml: string, open: number): number {
  for (let index = open + 1; index < xml.length; index++) {
    const code = xml.charCodeAt(index);
    if (code === GT) return index + 1;
    if (code === LT) return -1;
    if (code === QUOTE || code === APOSTROPHE) {
      // A quoted value may hold `>` but not `<`.
      for (index++; index < xml.length && xml.charCodeAt(index) !== code; index++) {
        if (xml.charCodeAt(index) === LT) return -1;
      }
    }
  }
  return -1;
}

function closing(xml: string, close: string, from: number): number {
  const end = xml.indexOf(close, from);
  return end < 0 ? -1 : end + close.length;
}
