// Accumulates one declared field's cells into a typed column, coercing and checking every cell as it arrives.
import type { FieldType, TableFieldConfig } from '../config/schema.ts';
import { coerceEpochDay, coerceValue, INVALID, invalidReason } from './coerce-cell.ts';
import { type CellKey, type Column, columnKindOf } from './column.ts';

/** Why a cell was refused; the caller adds the table, data row and column. */
export interface CellProblem {
  readonly code: 'ingest.type_mismatch' | 'ingest.null_value';
  readonly detail: string;
}

export interface ColumnBuilder {
  /** Cells appended so far. */
  readonly length: number;
  /**
   * Coerces and appends `cells[0]` to `cells[count - 1]`. Returns -1, or the index of the first refused cell (the
   * cells before it are appended, it and the rest are not) with the reason in `problem()`. `epochDays`: the cells
   * are DATE values as days since 1970-01-01 (see ColumnBatch).
   */
  append(cells: ArrayLike<unknown>, count: number, epochDays?: boolean): number;
  problem(): CellProblem;
  /** The values appended so far (a primary key has no nulls), for checking primary-key order. */
  keys(): ArrayLike<CellKey>;
  /** The finished column, its rows permuted by `order` when given (`order[i]` = appended index of row i). */
  finish(order: Int32Array | undefined): Column;
}

export interface ColumnBuilderOptions {
  /** The table's primary key: empty cells are refused whatever `nullable` says. */
  readonly primaryKey: boolean;
  readonly excelSerials: boolean;
}

const INITIAL_CAPACITY = 1024;
const CONCAT_GROUP = 1024;

export function createColumnBuilder(field: TableFieldConfig, options: ColumnBuilderOptions): ColumnBuilder {
  const kind = columnKindOf(field.type);
  if (kind === 'numeric') return new NumericBuilder(field, options);
  if (kind === 'boolean') return new BooleanBuilder(field, options);
  return new TextBuilder(field, options);
}

/** What every kind shares: the field's rules and the reason of the last refusal. */
abstract class CheckedBuilder {
  length = 0;
  protected readonly type: FieldType;
  protected readonly nullable: boolean;
  protected readonly excelSerials: boolean;
  private readonly primaryKey: boolean;
  private lastProblem: CellProblem = { code: 'ingest.type_mismatch', detail: '' };

  constructor(field: TableFieldConfig, options: ColumnBuilderOptions) {
    this.type = field.type;
    this.primaryKey = options.primaryKey;
    this.nullable = field.nullable && !options.primaryKey;
    this.excelSerials = options.excelSerials;
  }

  problem(): CellProblem {
    return this.lastProblem;
  }

  /** Records why the coerced value of cell `index` is refused (INVALID, or null where nulls are not allowed). */
  protected refuse(index: number, value: unknown): number {
    if (value === INVALID) {
      // The reason names the kind of value, never the value, so a sensitive column needs no other wording.
      this.lastProblem = { code: 'ingest.type_mismatch', detail: invalidReason() };
    } else {
      const detail = this.primaryKey ? 'primary key is empty' : 'empty value in a non-nullable field';
      this.lastProblem = { code: 'ingest.null_value', detail };
    }
    return index;
  }
}

/** number, integer and timestamp: a Float64Array plus a null mask, doubled as it fills. */
class NumericBuilder extends CheckedBuilder implements ColumnBuilder {
  private values = new Float64Array(INITIAL_CAPACITY);
  private nulls = new Uint8Array(INITIAL_CAPACITY);

  append(cells: ArrayLike<unknown>, count: number, epochDays = false): number {
    this.reserve(count);
    const { values, nulls, type, excelSerials, nullable } = this;
    const start = this.length;
    const coerce = epochDays ? coerceEpochDay : coerceValue;
    if (type !== 'timestamp' && !epochDays && cells.length >= count) {
      // Typed arrays (Parquet columns without nulls) skip the per-cell type dispatch.
      if (isSmallIntegerArray(cells)) {
        values.set(cells.subarray(0, count), start);
        nulls.fill(0, start, start + count);
        this.length = start + count;
        return -1;
      }
      if (cells instanceof Float64Array || cells instanceof Float32Array)
        return this.appendFloats(cells, count);
    }
    for (let i = 0; i < count; i++) {
      const value = coerce(cells[i], type, excelSerials);
      if (typeof value === 'number') {
        values[start + i] = value;
        nulls[start + i] = 0;
      } else if (value === null && nullable) {
        values[start + i] = 0;
        nulls[start + i] = 1;
      } else {
        this.length = start + i;
        return this.refuse(i, value);
      }
    }
    this.length = start + count;
    return -1;
  }

  /** Every finite float is a number, every safe integer an integer; anything else goes through the usual check. */
  private appendFloats(cells: Float64Array | Float32Array, count: number): number {
    const { values, nulls, type, excelSerials } = this;
    const start = this.length;
    const integer = type === 'integer';
    nulls.fill(0, start, start + count);
    for (let i = 0; i < count; i++) {
      const value = cells[i] as number;
      if (integer ? Number.isSafeInteger(value) : Number.isFinite(value)) values[start + i] = value;
      else {
        this.length = start + i;
        return this.refuse(i, coerceValue(value, type, excelSerials));
      }
    }
    this.length = start + count;
    return -1;
  }

  keys(): ArrayLike<CellKey> {
    return this.values.subarray(0, this.length);
  }

  finish(order: Int32Array | undefined): Column {
    const type = this.type as 'number' | 'integer' | 'timestamp';
    const n = this.length;
    if (!order)
      return { kind: 'numeric', type, values: this.values.slice(0, n), nulls: this.nulls.slice(0, n) };
    const values = new Float64Array(n);
    const nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      const from = order[i] as number;
      values[i] = this.values[from] as number;
      nulls[i] = this.nulls[from] as number;
    }
    return { kind: 'numeric', type, values, nulls };
  }

  private reserve(count: number): void {
    if (this.length + count <= this.values.length) return;
    const capacity = grownCapacity(this.values.length, this.length + count);
    const values = new Float64Array(capacity);
    values.set(this.values.subarray(0, this.length));
    const nulls = new Uint8Array(capacity);
    nulls.set(this.nulls.subarray(0, this.length));
    this.values = values;
    this.nulls = nulls;
  }
}

/** boolean: 0 false, 1 true, 2 null in a Uint8Array. */
class BooleanBuilder extends CheckedBuilder implements ColumnBuilder {
  private values = new Uint8Array(INITIAL_CAPACITY);

  append(cells: ArrayLike<unknown>, count: number, epochDays = false): number {
    if (this.length + count > this.values.length) {
      const values = new Uint8Array(grownCapacity(this.values.length, this.length + count));
      values.set(this.values.subarray(0, this.length));
      this.values = values;
    }
    const { values, type, excelSerials, nullable } = this;
    const start = this.length;
    const coerce = epochDays ? coerceEpochDay : coerceValue;
    for (let i = 0; i < count; i++) {
      const value = coerce(cells[i], type, excelSerials);
      if (typeof value === 'boolean') values[start + i] = value ? 1 : 0;
      else if (value === null && nullable) values[start + i] = 2;
      else {
        this.length = start + i;
        return this.refuse(i, value);
      }
    }
    this.length = start + count;
    return -1;
  }

  keys(): ArrayLike<CellKey> {
    // 0 and 1 order and compare as false and true do.
    return this.values.subarray(0, this.length);
  }

  finish(order: Int32Array | undefined): Column {
    const n = this.length;
    if (!order) return { kind: 'boolean', type: 'boolean', values: this.values.slice(0, n) };
    const values = new Uint8Array(n);
    for (let i = 0; i < n; i++) values[i] = this.values[order[i] as number] as number;
    return { kind: 'boolean', type: 'boolean', values };
  }
}

/**
 * string and date (`YYYY-MM-DD`): one exact-size array per append, joined into one array when finished (cheaper
 * than growing a single array by push).
 */
class TextBuilder extends CheckedBuilder implements ColumnBuilder {
  private readonly chunks: (string | null)[][] = [];
  private joined: (string | null)[] | undefined;

  append(cells: ArrayLike<unknown>, count: number, epochDays = false): number {
    const { type, excelSerials, nullable } = this;
    const coerce = epochDays ? coerceEpochDay : coerceValue;
    const chunk: (string | null)[] = new Array(count);
    this.joined = undefined;
    this.chunks.push(chunk);
    for (let i = 0; i < count; i++) {
      const value = coerce(cells[i], type, excelSerials);
      if (typeof value === 'string' || (value === null && nullable)) chunk[i] = value;
      else {
        chunk.length = i;
        this.length += i;
        return this.refuse(i, value);
      }
    }
    this.length += count;
    return -1;
  }

  keys(): ArrayLike<CellKey> {
    return this.values() as ArrayLike<CellKey>;
  }

  finish(order: Int32Array | undefined): Column {
    const type = this.type as 'string' | 'date';
    const values = this.values();
    if (order) permuteInPlace(values, order);
    return { kind: 'text', type, values };
  }

  private values(): (string | null)[] {
    if (this.joined === undefined) {
      // concat copies in bulk; spread in groups to stay far below the argument limit.
      let joined: (string | null)[] = [];
      for (let from = 0; from < this.chunks.length; from += CONCAT_GROUP) {
        joined = joined.concat(...this.chunks.slice(from, from + CONCAT_GROUP));
      }
      // The joined array replaces the chunks, so they can be collected and later appends still line up.
      this.chunks.splice(0, this.chunks.length, joined);
      this.joined = joined;
    }
    return this.joined;
  }
}

/**
 * Puts `values[order[i]]` at `i`, cycle by cycle, in the array itself: the joined array is the builder's own, and
 * a second array of references would take 8 bytes a row more at the load's peak (a bit a row marks what is done).
 */
function permuteInPlace(values: (string | null)[], order: Int32Array): void {
  const done = new Uint8Array((values.length + 7) >> 3);
  for (let start = 0; start < values.length; start++) {
    if ((done[start >> 3] as number) & (1 << (start & 7))) continue;
    const first = values[start] ?? null;
    let at = start;
    for (;;) {
      done[at >> 3] = (done[at >> 3] as number) | (1 << (at & 7));
      const from = order[at] as number;
      if (from === start) {
        values[at] = first;
        break;
      }
      values[at] = values[from] ?? null;
      at = from;
    }
  }
}

type SmallIntegerArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array;

/** Typed arrays whose every element is a safe integer (and so a valid integer and number cell). */
function isSmallIntegerArray(cells: ArrayLike<unknown>): cells is SmallIntegerArray {
  return (
    cells instanceof Int32Array ||
    cells instanceof Uint32Array ||
    cells instanceof Int16Array ||
    cells instanceof Uint16Array ||
    cells instanceof Int8Array ||
    cells instanceof Uint8Array ||
    cells instanceof Uint8ClampedArray
  );
}

function grownCapacity(current: number, needed: number): number {
  let capacity = Math.max(current, INITIAL_CAPACITY);
  while (capacity < needed) capacity *= 2;
  return capacity;
}
