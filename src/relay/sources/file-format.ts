// Which reader a file source is read with: its `format`, else the extension of its path. `config check` asks the
// same question, so it refuses exactly the sources the loader could not read.
import { extname } from 'node:path';
import type { FileSourceConfig } from '../config/schema.ts';

type FormatConfig = NonNullable<FileSourceConfig['format']>;
export type CsvFormat = NonNullable<FormatConfig['csv']>;
export type XlsxFormat = NonNullable<FormatConfig['xlsx']>;

export type ChosenFormat =
  | { readonly kind: 'csv'; readonly options: CsvFormat }
  | { readonly kind: 'xlsx'; readonly options: XlsxFormat }
  | { readonly kind: 'parquet' };

/** The format of a file source, or undefined when neither `format` nor the extension tells it. */
export function fileFormatOf(source: Pick<FileSourceConfig, 'path' | 'format'>): ChosenFormat | undefined {
  const given = source.format;
  if (given !== undefined) {
    if (given.csv !== undefined) return { kind: 'csv', options: given.csv };
    if (given.xlsx !== undefined) return { kind: 'xlsx', options: given.xlsx };
    if (given.parquet !== undefined) return { kind: 'parquet' };
    return undefined;
  }
  switch (extname(source.path).toLowerCase()) {
    case '.csv':
      return { kind: 'csv', options: { header_row: true, delimiter: ',', quote: '"' } };
    case '.tsv':
      return { kind: 'csv', options: { header_row: true, delimiter: '\t', quote: '"' } };
    case '.xlsx':
      return { kind: 'xlsx', options: { header_row: 1 } };
    case '.parquet':
      return { kind: 'parquet' };
  }
  return undefined;
}

/** Why a source has no format, as the loader (`ingest.unsupported_format`) and `config check` both say it. */
export function unknownFormatDetail(path: string): string {
  return `cannot tell the format of ${path}: use a .csv, .tsv, .xlsx or .parquet file or set source.format`;
}
