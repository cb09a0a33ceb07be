// XLSX cells whose text is written as CDATA sections or split by XML comments: read-excel-file reads only plain
// text nodes, so such cells are rewritten to plain text before it reads them, and served as the file says.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { plainXml } from '../sources/open-xlsx-package.ts';
import {
  type Field,
  header,
  load,
  loadError,
  num,
  row,
  served,
  table,
  text,
  useWorkbookDir,
  writeWorkbook,
} from './xlsx-workbook-test-support.ts';

useWorkbookDir();

const shared = (ref: string, index: number | string) => `<c r="${ref}" t="s"><v>${index}</v></c>`;
const FIELDS: Field[] = [
  ['id', 'integer'],
  ['name', 'string'],
];

describe('buildTable from XLSX text in CDATA sections and around comments', () => {
  it('serves shared strings written as CDATA, plain, mixed, in rich runs, and holding markup', async () => {
    await writeWorkbook('shared-cdata.xlsx', {
      sharedStrings: [
        '<![CDATA[Ada]]>',
        'Grace',
        'Al<![CDATA[an]]> Turing',
        '<![CDATA[<b>Tom & Jerry</b> &amp; <!-- not a comment -->]]>',
        ' <![CDATA[]]> ',
      ],
      sharedStringItems: '<si><r><t>Kat</t></r><r><t><![CDATA[herine]]></t></r><rPh><t>x</t></rPh></si>',
      rows:
        header('id', 'name') +
        [0, 1, 2, 3, 4, 5]
          .map((index) => row(index + 2, num(`A${index + 2}`, index + 1) + shared(`B${index + 2}`, index)))
          .join(''),
    });
    assert.deepEqual(served(await load(table('shared-cdata.xlsx', FIELDS))), [
      { id: 1, name: 'Ada' },
      { id: 2, name: 'Grace' },
      { id: 3, name: 'Alan Turing' },
      { id: 4, name: '<b>Tom & Jerry</b> &amp; <!-- not a comment -->' },
      { id: 5, name: '  ' },
      { id: 6, name: 'Katherine' },
    ]);
  });

  it('serves inline strings, numbers and shared-string indexes written as CDATA, and CDATA headers', async () => {
    await writeWorkbook('inline-cdata.xlsx', {
      sharedStrings: ['Grace'],
      rows:
        row(1, text('A1', '<![CDATA[id]]>') + text('B1', 'na<![CDATA[me]]>') + text('C1', 'size')) +
        row(2, num('A2', '<![CDATA[1]]>') + text('B2', '<![CDATA[Ada]]>') + num('C2', '<![CDATA[2.5]]>')) +
        row(3, num('A3', 2) + shared('B3', '<![CDATA[0]]>') + num('C3', ' <![CDATA[4]]>')),
    });
    const fields: Field[] = [...FIELDS, ['size', 'number']];
    assert.deepEqual(served(await load(table('inline-cdata.xlsx', fields))), [
      { id: 1, name: 'Ada', size: 2.5 },
      { id: 2, name: 'Grace', size: 4 },
    ]);
  });

  it('serves the whole text of cells split by comments, and ignores comments elsewhere', async () => {
    await writeWorkbook('comments.xlsx', {
      sharedStrings: ['Ada<!-- first -->Love<!-- <![CDATA[x]]> -->lace'],
      rows:
        `<!-- a note -->${header('id', 'name')}` +
        row(2, num('A2', 1) + shared('B2', 0)) +
        row(3, `<c r="A3"><v>2<!-- x -->0</v></c>${text('B3', 'Grace <!-- x -->Hopper')}`),
    });
    assert.deepEqual(served(await load(table('comments.xlsx', FIELDS))), [
      { id: 1, name: 'AdaLovelace' },
      { id: 20, name: 'Grace Hopper' },
    ]);
  });

  it('serves a date written as CDATA as the date, and reports an error value written as CDATA', async () => {
    await writeWorkbook('date-cdata.xlsx', {
      rows: header('id', 'joined') + row(2, num('A2', 1) + num('B2', '<![CDATA[45292.000023148146]]>', 2)),
    });
    const fields: Field[] = [
      ['id', 'integer'],
      ['joined', 'timestamp'],
    ];
    assert.deepEqual(served(await load(table('date-cdata.xlsx', fields))), [
      { id: 1, joined: '2024-01-01T00:00:02.000Z' },
    ]);
    await writeWorkbook('error-cdata.xlsx', {
      rows: header('id', 'joined') + row(2, `${num('A2', 1)}<c r="B2" t="e"><v><![CDATA[#N/A]]></v></c>`),
    });
    const error = await loadError(table('error-cdata.xlsx', fields));
    assert.equal(error.code, 'ingest.error_cell');
    assert.match(error.message, /#N\/A in cell B2/);
  });

  it('fails the load, naming the part, when a CDATA section or comment is not closed', async () => {
    await writeWorkbook('open-shared.xlsx', {
      sharedStrings: ['<![CDATA[Ada'],
      rows: header('id', 'name') + row(2, num('A2', 1) + shared('B2', 0)),
    });
    const shared_ = await loadError(table('open-shared.xlsx', FIELDS));
    assert.equal(shared_.code, 'ingest.parse_error');
    assert.match(shared_.message, /xl\/sharedStrings\.xml .*a CDATA section is not closed/);
    await writeWorkbook('open-comment.xlsx', {
      rows: header('id', 'name') + row(2, num('A2', 1) + text('B2', 'Ada<!-- note')),
    });
    const sheet = await loadError(table('open-comment.xlsx', FIELDS));
    assert.equal(sheet.code, 'ingest.parse_error');
    assert.match(sheet.message, /sheet "Data" \(xl\/worksheets\/sheet1\.xml\).*a comment is not closed/);
  });

  it('rewrites only XML with CDATA sections or comments, and refuses a DOCTYPE among them', () => {
    assert.equal(plainXml('<t a="x>y">Ada &amp; co</t>'), undefined);
    assert.equal(
      plainXml('<?pi <!-- kept ?><t a="]]>"><![CDATA[a]]]]><![CDATA[>&]]><!---->b</t>'),
      '<?pi <!-- kept ?><t a="]]>">a]]&gt;&amp;b</t>',
    );
    assert.throws(() => plainXml('<!DOCTYPE x [<!ENTITY e "y">]><t><![CDATA[a]]></t>'), /declaration/);
    assert.throws(() => plainXml('<t><![CDATA[a]]</t>'), /a CDATA section is not closed/);
  });
});

describe('buildTable from an XLSX file whose parts are not UTF-8', () => {
  it('refuses it as unreadable, naming the part, rather than serving U+FFFD for the bytes', async () => {
    await writeWorkbook('latin1.xlsx', {
      latin1: true,
      rows: header('id', 'name') + row(2, num('A2', 1) + text('B2', 'café')),
    });
    const error = await loadError(table('latin1.xlsx', FIELDS));
    assert.equal(error.code, 'ingest.parse_error');
    assert.match(error.message, /worksheet part of sheet "Data" .* is not UTF-8 text/);
  });

  it('reads the same file written as UTF-8', async () => {
    await writeWorkbook('utf8.xlsx', {
      rows: header('id', 'name') + row(2, num('A2', 1) + text('B2', 'café')),
    });
    assert.deepEqual(served(await load(table('utf8.xlsx', FIELDS))), [{ id: 1, name: 'café' }]);
  });
});
