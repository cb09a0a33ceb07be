// The markup scan run before a sheet is decoded: which XML it passes, which it refuses, and why.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SHEET_MAX_TAG_CHARS, SHEET_MAX_TEXT_CHARS, sheetMarkupFault } from './scan-sheet-markup.ts';

describe('sheetMarkupFault', () => {
  it('passes well-formed markup, `<` and `>` where XML allows them', () => {
    for (const xml of [
      '<?xml version="1.0"?><worksheet><sheetData/></worksheet>',
      '<a x="1 > 0" y=\'>\'><b/></a>',
      '<a><![CDATA[<b> & <c]]></a>',
      '<a><!-- <b> --><?pi <c> ?></a>',
      `<a>${'x'.repeat(SHEET_MAX_TEXT_CHARS)}</a>`,
      `<a x="${'x'.repeat(SHEET_MAX_TAG_CHARS - 9)}"/>`,
    ]) {
      assert.equal(sheetMarkupFault(xml), undefined, xml.slice(0, 40));
    }
  });

  it('refuses a tag left open, a `<` in an attribute value, and sections not closed', () => {
    for (const xml of [
      '<a><mergeCell <mergeCell ref="A1"/></a>',
      '<a x="<b>"/>',
      '<a x="1></a>',
      '<a><b',
      '<a><![CDATA[x</a>',
      '<a><!-- x</a>',
      '<?xml version="1.0"<a/>',
    ]) {
      assert.equal(sheetMarkupFault(xml)?.kind, 'not_well_formed', xml);
    }
  });

  it('refuses a tag or a text run over its length limit', () => {
    const tag = `<a x="${'x'.repeat(SHEET_MAX_TAG_CHARS)}"/>`;
    assert.deepEqual(sheetMarkupFault(`<r>${tag}</r>`), { kind: 'tag', chars: tag.length });
    const text = 'x'.repeat(SHEET_MAX_TEXT_CHARS + 1);
    assert.deepEqual(sheetMarkupFault(`<r>${text}</r>`), { kind: 'text', chars: text.length });
    const cdata = `<![CDATA[${text}]]>`;
    assert.deepEqual(sheetMarkupFault(`<r>${cdata}</r>`), { kind: 'text', chars: cdata.length });
  });
});
