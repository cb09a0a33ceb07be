// The compression codec of every column chunk, checked against the decompressors the relay has when a Parquet file
// is opened: a chunk it cannot decompress would otherwise fail the load only once its row group is read.
import type { Compressors, FileMetaData } from 'hyparquet';
import { deserializeTCompactProtocol } from 'hyparquet/src/thrift.js';
import { type SourceFile, sourceError } from './source-file.ts';

/**
 * `metadata`, unless a column chunk names a codec without a decompressor in `compressors` (UNCOMPRESSED needs
 * none): then the load is refused, naming the first such column and its codec and listing the codecs read. `footer`
 * is the footer `metadata` was decoded from, read again only for the number of a codec Parquet does not define.
 */
export function withReadableCodecs(
  file: SourceFile,
  metadata: FileMetaData,
  footer: Uint8Array,
  compressors: Compressors,
): FileMetaData {
  const readable = new Set(['UNCOMPRESSED', ...Object.keys(compressors)]);
  for (const [groupIndex, group] of metadata.row_groups.entries()) {
    for (const [chunkIndex, { meta_data: meta }] of group.columns.entries()) {
      if (meta === undefined || readable.has(meta.codec)) continue;
      const column = `column ${JSON.stringify(meta.path_in_schema.join('.'))} (row group ${groupIndex + 1})`;
      const list = listed([...readable]);
      const why =
        meta.codec === undefined
          ? `is compressed with codec ${codecNumber(footer, groupIndex, chunkIndex)}, which Parquet does not define; the relay reads ${list}`
          : `is compressed with ${meta.codec}, which the relay cannot decompress; it reads ${list}`;
      throw sourceError(
        file,
        'ingest.parse_error',
        `${file.displayPath} is not a readable Parquet file: ${column} ${why}`,
      );
    }
  }
  return metadata;
}

/** The codec number a column chunk's metadata holds, as written (hyparquet leaves an unknown one undefined). */
function codecNumber(footer: Uint8Array, groupIndex: number, chunkIndex: number): string {
  const view = new DataView(footer.buffer, footer.byteOffset, footer.byteLength);
  const raw = deserializeTCompactProtocol({ view, offset: 0 });
  const codec: unknown = raw.field_4?.[groupIndex]?.field_1?.[chunkIndex]?.field_3?.field_4;
  return typeof codec === 'number' ? String(codec) : 'unknown';
}

function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}
