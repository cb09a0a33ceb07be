// Compressed pages, whose runs can only be walked once decompressed: checkPages registers each one it checks the
// header of, by its stored bytes, and the decompressors hyparquet is given walk the page they produce against that
// registration. hyparquet decompresses each page once, so this costs a lookup per page and no second inflation.
import type { Compressors } from 'hyparquet';
import { type PageProblem, valuesProblem } from './parquet-pages.ts';
import { type PageRuns, v1PageProblem, v2ValuesProblem } from './parquet-runs.ts';
import { decompressZstdFrames, zstdFrames } from './parquet-zstd.ts';

/**
 * What a compressed page holds: runs or delta-encoded lengths to walk (none for a dictionary page or plain values),
 * and where it is.
 */
export interface ExpectedPage {
  readonly runs: PageRuns | undefined;
  readonly where: string;
}

interface Registered {
  readonly stored: Uint8Array;
  readonly page: ExpectedPage;
}

/** The compressed pages of one pass over a row group, taken in turn as hyparquet decompresses them. */
export class CompressedPages {
  readonly #pages = new Map<string, Registered[]>();

  expect(stored: Uint8Array, uncompressed: number, page: ExpectedPage): void {
    const key = `${stored.length}:${uncompressed}`;
    const list = this.#pages.get(key) ?? [];
    list.push({ stored, page });
    this.#pages.set(key, list);
  }

  /** The first registration of exactly these bytes (hyparquet hands over a view of the bytes checked, or a copy). */
  take(stored: Uint8Array, uncompressed: number): ExpectedPage | undefined {
    const list = this.#pages.get(`${stored.length}:${uncompressed}`);
    const bytes = Buffer.from(stored.buffer, stored.byteOffset, stored.length);
    const index = list?.findIndex((entry) => bytes.equals(entry.stored)) ?? -1;
    if (list === undefined || index < 0) return undefined;
    return list.splice(index, 1)[0]?.page;
  }
}

/**
 * `compressors` with each decompressor walking the runs (and delta-encoded lengths) of the page it returns. A page
 * no header check registered is refused rather than decoded unchecked; `refuse` makes the error (where, undefined
 * for such a page; why; code, ingest.parse_error unless given).
 * A ZSTD page has its frames walked and is decompressed into the size its header declares (see parquet-zstd.ts),
 * in place of the ZSTD decompressor given, which allocates what the frames declare.
 */
export function checkingCompressors(
  compressors: Compressors,
  pages: CompressedPages,
  refuse: (where: string | undefined, why: string, code?: PageProblem['code']) => Error,
): Compressors {
  const checking: Compressors = {};
  for (const [codec, decompress] of Object.entries(compressors)) {
    if (decompress === undefined) continue;
    checking[codec as keyof Compressors] = (input: Uint8Array, length: number): Uint8Array => {
      const expected = pages.take(input, length);
      if (expected === undefined) throw refuse(undefined, 'was not checked before it was decompressed');
      let page: Uint8Array;
      if (codec === 'ZSTD') {
        const frames = zstdFrames(input, length);
        if (typeof frames === 'string') throw refuse(expected.where, frames);
        page = decompressZstdFrames(input, frames, length);
      } else page = decompress(input, length);
      const runs = expected.runs;
      const problem =
        runs && valuesProblem(runs.v2 ? v2ValuesProblem(page, runs) : v1PageProblem(page, runs), page, runs);
      if (problem !== undefined) throw refuse(expected.where, problem.why, problem.code);
      return page;
    };
  }
  return checking;
}
