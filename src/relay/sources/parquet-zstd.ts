// ZSTD pages, decompressed into the size their page header declares. Left to itself, the decompressor allocates what
// each frame header declares (up to about 2 GiB a frame), or for a frame declaring nothing its window, and a block
// of up to 128 KiB for every 4 bytes: a page of a few dozen bytes could take gigabytes. The frames are walked first
// (RFC 8878: frame header, then 3-byte block headers), and each is decompressed into its own part of one buffer of
// the page's size, which the decompressor writes into and never grows.
import { decompressZstd } from 'hyparquet-compressors';

/** One frame that decompresses to something, and the bytes of the page it fills. */
export interface ZstdFrame {
  readonly start: number;
  readonly end: number;
  readonly size: number;
}

const FRAME_MAGIC = 0xfd2fb528;
/** Skippable frames: magic 0x184D2A50 to 0x184D2A5F, then a 4-byte length. */
const SKIPPABLE_MAGIC = 0x184d2a5;
const MAX_BLOCK = 128 * 1024;
const RAW = 0;
const RLE = 1;
const COMPRESSED = 2;

/** A frame header and its blocks as the format describes them, before anything is decompressed. */
interface Walked {
  readonly end: number;
  /** Frame_Content_Size, when the header declares it. */
  readonly declared: number | undefined;
  /** What the blocks decompress to at least (raw and RLE blocks exactly) and at most. */
  readonly least: number;
  readonly most: number;
}

/**
 * The frames of a ZSTD page and where each goes in the `length` bytes its header declares, or why the page is
 * refused: frames cut short, or declaring or holding more or less than the page. A frame declaring no size must be
 * the last unless its blocks give its size, as nothing else says where the next frame's output starts.
 */
export function zstdFrames(input: Uint8Array, length: number): ZstdFrame[] | string {
  const frames: ZstdFrame[] = [];
  let declared = 0;
  let offset = 0;
  let open = false; // a frame of unknown size was seen: it takes all that is left of the page
  while (offset < input.length) {
    const magic = uint32(input, offset);
    if (magic !== undefined && magic >>> 4 === SKIPPABLE_MAGIC) {
      const size = uint32(input, offset + 4);
      if (size === undefined || offset + 8 + size > input.length) return 'holds a ZSTD frame cut short';
      offset += 8 + size;
      continue;
    }
    if (magic !== FRAME_MAGIC) return `holds bytes that are not a ZSTD frame at byte ${offset}`;
    if (open) return 'holds a ZSTD frame of undeclared size followed by another frame';
    const frame = walkFrame(input, offset + 4);
    if (typeof frame === 'string') return frame;
    const known = frame.declared ?? (frame.least === frame.most ? frame.least : undefined);
    if (known !== undefined && declared + known > length) {
      return `holds ZSTD frames of at least ${declared + known} bytes, more than the ${length} its header declares`;
    }
    const size = known ?? length - declared;
    if (frame.least > size || frame.most < size) {
      const what = frame.least > size ? `at least ${frame.least}` : `at most ${frame.most}`;
      return known === undefined
        ? `holds a ZSTD frame of ${what} bytes, not the ${size} its header leaves it`
        : `holds a ZSTD frame declaring ${size} bytes whose blocks hold ${what}`;
    }
    frames.push({ start: offset, end: frame.end, size });
    declared += size;
    open = known === undefined;
    offset = frame.end;
  }
  if (declared < length) {
    return `holds ZSTD frames of ${declared} bytes, fewer than the ${length} its header declares`;
  }
  return frames;
}

/** The page the frames `zstdFrames` found decompress to: `length` bytes, each frame into its part of them. */
export function decompressZstdFrames(
  input: Uint8Array,
  frames: readonly ZstdFrame[],
  length: number,
): Uint8Array {
  const page = new Uint8Array(length);
  let at = 0;
  for (const { start, end, size } of frames) {
    decompressZstd(input.subarray(start, end), page.subarray(at, at + size));
    at += size;
  }
  return page;
}

/** The rest of a frame from its Frame_Header_Descriptor: where it ends and what its blocks hold. */
function walkFrame(input: Uint8Array, start: number): Walked | string {
  const cut = 'holds a ZSTD frame cut short';
  const descriptor = input[start];
  if (descriptor === undefined) return cut;
  if (descriptor & 0x08) return 'holds a ZSTD frame whose header sets its reserved bit';
  const sizeFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const checksum = (descriptor >> 2) & 1;
  const dictionaryBytes = [0, 1, 2, 4][descriptor & 3] as number;
  const sizeBytes = sizeFlag === 0 ? singleSegment : 1 << sizeFlag;
  let offset = start + 1;
  let window = 0;
  if (!singleSegment) {
    const byte = input[offset];
    if (byte === undefined) return cut;
    const base = 2 ** (10 + (byte >> 3));
    window = base + (base / 8) * (byte & 7);
    offset += 1;
  }
  offset += dictionaryBytes;
  if (offset + sizeBytes > input.length) return cut;
  let declared: number | undefined;
  if (sizeBytes > 0) {
    declared = 0;
    for (let i = sizeBytes - 1; i >= 0; i--) declared = declared * 256 + (input[offset + i] as number);
    if (sizeBytes === 2) declared += 256;
    if (singleSegment) window = declared;
  }
  offset += sizeBytes;
  // Each block regenerates at most Block_Maximum_Size bytes: the window, up to 128 KiB.
  const blockMost = Math.min(window, MAX_BLOCK);
  let least = 0;
  let most = 0;
  for (let last = false; !last; ) {
    if (offset + 3 > input.length) return cut;
    const header =
      (input[offset] as number) |
      ((input[offset + 1] as number) << 8) |
      ((input[offset + 2] as number) << 16);
    last = (header & 1) === 1;
    const type = (header >> 1) & 3;
    const size = header >>> 3;
    offset += 3;
    if (type === RAW || type === RLE) {
      least += size;
      most += size;
      offset += type === RAW ? size : 1;
    } else if (type === COMPRESSED) {
      most += blockMost;
      offset += size;
    } else return 'holds a ZSTD block of the reserved type';
    if (offset > input.length) return cut;
  }
  offset += checksum * 4;
  if (offset > input.length) return cut;
  return { end: offset, declared, least, most };
}

function uint32(bytes: Uint8Array, offset: number): number | undefined {
  if (offset + 4 > bytes.length) return undefined;
  const low = (bytes[offset] as number) | ((bytes[offset + 1] as number) << 8);
  return low + ((bytes[offset + 2] as number) << 16) + (bytes[offset + 3] as number) * 2 ** 24;
}
