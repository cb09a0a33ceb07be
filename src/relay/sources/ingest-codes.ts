// The codes a table load can fail with, and when: SourceError takes only these, docs/configuration.md lists them.
export const INGEST_CODES = {
  'ingest.file_not_found': 'A source file does not exist (or a folder on its path is a file).',
  'ingest.file_unreadable': 'A source file exists but cannot be read (permissions, an I/O error).',
  'ingest.file_size_unknown':
    'A source path is not a regular file (a folder, a pipe, a device, a socket), or is a file that holds more or fewer bytes than its size says (such as those under `/proc` and `/sys`), so its size cannot be checked.',
  'ingest.file_too_large':
    'A source file is over `server.max_source_file_bytes` (`server.xlsx_max_file_bytes` for XLSX), an XLSX file expands to more XML than the relay reads (1 GiB of parts, or one part of more than 536,870,888 characters of text, the longest string the runtime makes; the message names the part), or a Parquet page expands (or its DELTA_BYTE_ARRAY values add up) to more than 256 MiB (268,435,456 bytes; the message gives the row group, column and page).',
  'ingest.file_changed':
    'A source file changed while it was being read; the load fails and the next one reads it again.',
  'ingest.unsupported_format':
    'The format of a source file cannot be told from its extension: use .csv, .tsv, .xlsx or .parquet, or set `source.format`. The config check refuses such a path first, so `config check` and a start report it as `config.validation_error` at its `source.path`.',
  'ingest.parse_error':
    'A source file is not valid CSV, XLSX or Parquet (a CSV record over 64 MiB, an XLSX part with a `<!DOCTYPE>`, a Parquet dictionary index past its dictionary; a Parquet page header that declares more bytes or values than its column chunk holds, or more bytes than its codec can make of those stored, a run of levels or dictionary indices longer than its page, and delta-encoded lengths that are negative, run past their page or repeat more of the value before than it has, are refused before they are decoded, and so is an XLSX sheet with a tag left open, a tag over 262,144 characters or text between tags over 2,097,152), or an XLSX `data_range` is not an A1 range (the message gives the line, cell or page); also a Parquet column chunk compressed with a codec the relay does not decompress (LZO, or a number the format does not define; refused when the file is opened, the message naming the column and the codec and listing those read), and an XLSX relationship target with `.` or `..` segments (the message names the relationship and its target).',
  'ingest.invalid_encoding':
    'A CSV file is not UTF-8 text (a byte sequence that is not UTF-8; the message gives the line): save it as UTF-8, with or without a BOM.',
  'ingest.sheet_not_found':
    'An XLSX file has no sheet of the configured name (the message lists its sheets).',
  'ingest.formula_cell':
    'An XLSX cell holds a formula: formulas are not evaluated, save the values instead (the message gives the cell).',
  'ingest.error_cell':
    'An XLSX cell holds an error value such as `#N/A` or `#DIV/0!`: it is refused rather than served as empty (the message gives the cell).',
  'ingest.merged_cell':
    'An XLSX data region holds merged cells: only the first cell of a merge holds the value Excel shows across it, so the others would be served empty. Unmerge them and fill each cell (the message gives the range and cell).',
  'ingest.column_limit':
    'A source has more columns, or more cells, than the relay reads from one file: 65,536 columns of CSV, 4,096 of Parquet, and 10,000,000 cells (rows × columns) of any file, a Parquet file by the rows its footer declares (and by the values it declares for nested list, map or struct columns, 10,000,000 in all).',
  'ingest.missing_column': 'A declared field has no column of its name in the source.',
  'ingest.strict_extra_column': 'Under `schema.strict`, the source has a column no field declares.',
  'ingest.duplicate_column':
    'The header of a source file names a column twice (whether or not a field declares it), or a PostgreSQL result has two columns named as a declared field (the message names the column).',
  'ingest.type_mismatch':
    'A cell does not fit its field type, or a PostgreSQL column type cannot serve the declared type (the message gives the row and column).',
  'ingest.null_value': 'The primary key, or a field that is not `nullable`, has an empty cell or a NULL.',
  'ingest.duplicate_primary_key': 'Two rows share a primary key (the message gives both rows).',
  'ingest.source_unavailable':
    'PostgreSQL cannot be reached, refuses the connection or the login, lost the connection, or ended the read for a reason that passes (a deadlock or a conflict with recovery, SQLSTATE 40P01 or 40001; a cancel another session asked for); at startup the table waits and is retried.',
  'ingest.query_failed':
    'PostgreSQL refused the read: the table or view is missing or not visible, a permission is denied, a write was attempted in the read-only transaction, or the database refused `change_token_sql`.',
  'ingest.query_timeout':
    "A PostgreSQL statement ran past `source.query_timeout`, or waited for a lock past the database's own `lock_timeout` (SQLSTATE 55P03).",
  'ingest.live_key_not_unique':
    'A live PostgreSQL table has no unique index on the primary key alone, which its pages are cut by, or its key column may be NULL.',
  'ingest.memory_limit':
    "Loading a table would take the relay's JavaScript heap past 85% of its limit (live data, after a full collection), or decoding an XLSX workbook ran its decoder thread (whose heap is as large) out of heap: serve the table live (`materialization: live`, PostgreSQL) or give the process more heap (`NODE_OPTIONS=--max-old-space-size=<MiB>`); a reload that fails so keeps the previous generation.",
  'ingest.load_failed': 'A load failed for a reason without a code of its own (the log has the detail).',
} as const satisfies Record<string, string>;

export type IngestCode = keyof typeof INGEST_CODES;
