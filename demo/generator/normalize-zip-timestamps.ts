// Rewrites the DOS modification time of every ZIP entry to a fixed value so XLSX output is byte-stable.
// write-excel-file zips with fflate and exposes no mtime option, so each entry would carry the wall-clock time.

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
/** 1980-01-01 00:00:00, the earliest DOS date. */
const FIXED_DOS_DATE = (0 << 9) | (1 << 5) | 1;
const FIXED_DOS_TIME = 0;

export function normalizeZipTimestamps(zip: Uint8Array): Uint8Array {
  const out = new Uint8Array(zip);
  const view = new DataView(out.buffer, out.byteOffset, out.byteLength);
  const end = findEndOfCentralDirectory(view);
  const entries = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  for (let i = 0; i < entries; i++) {
    if (view.getUint32(offset, true) !== CENTRAL_HEADER)
      throw new Error(`no central directory header at ${offset}`);
    view.setUint16(offset + 12, FIXED_DOS_TIME, true);
    view.setUint16(offset + 14, FIXED_DOS_DATE, true);
    const local = view.getUint32(offset + 42, true);
    if (view.getUint32(local, true) !== LOCAL_HEADER) throw new Error(`no local file header at ${local}`);
    view.setUint16(local + 10, FIXED_DOS_TIME, true);
    view.setUint16(local + 12, FIXED_DOS_DATE, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

function findEndOfCentralDirectory(view: DataView): number {
  // The record is 22 bytes plus a comment of at most 65535 bytes, so search backwards from the end.
  const lowest = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let offset = view.byteLength - 22; offset >= lowest; offset--) {
    if (view.getUint32(offset, true) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error('not a ZIP archive: end of central directory record not found');
}
