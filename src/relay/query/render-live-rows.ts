// Renders rows read live from PostgreSQL as the entity's public JSON, through the same coercion as snapshot cells,
// so one table gives byte-identical records whether it is served as a snapshot or live. A value that does not fit
// throws LiveRowInvalid, which the live table answers as 502 `datasource.row_invalid`.
import type { CatalogField } from '../catalog/catalog.ts';
import { LiveRowInvalid } from '../sources/postgres/live-read-problems.ts';
import type { LiveRow } from '../sources/postgres/live-table.ts';
import { coerceValue, INVALID, isDateText } from '../store/coerce-cell.ts';

/** One cell's JSON from the database's text of it. */
type CellRenderer = (raw: string | null) => string;

export interface LiveLayout {
  /** Columns to SELECT, in order: every rendered field's column, then the primary key if not among them. */
  readonly columns: readonly string[];
  /** Position in `columns` of each rendered field. */
  readonly positions: readonly number[];
  readonly keyPosition: number;
  /** JSON object key prefixes (`{"name":`, `,"age":`). */
  readonly keys: readonly string[];
  /** How each rendered field's cells become JSON. */
  readonly renderers: readonly CellRenderer[];
  /**
   * Checks the key cell when no rendered field shows it: a row whose key a snapshot would refuse (NULL under a
   * UNIQUE index, empty) is refused whatever the projection, and a page never ends on a key it cannot continue from.
   */
  readonly keyCheck: CellRenderer | undefined;
  readonly keyField: CatalogField;
  /** How keys are compared for repeats (`checkDistinctKeys`): as records show them; none for a text key. */
  readonly keyShown: CellRenderer | undefined;
  /**
   * The filtered fields no rendered field shows, each with its position in `columns`: their cells are checked like
   * served ones. The database compares values a snapshot load refuses (NaN sorts above every number there, so
   * `NaN >= 5` holds; `infinity` follows every date), and a row matched by one must not be served as a match.
   */
  readonly filterChecks: readonly { readonly position: number; readonly check: CellRenderer }[];
}

/** `filtered`: the fields the read filters on, whose cells are checked whether or not `fields` shows them. */
export function liveLayout(
  fields: readonly CatalogField[],
  primaryKey: CatalogField,
  filtered: readonly CatalogField[] = [],
): LiveLayout {
  const columns: string[] = [];
  const positionOf = (column: string) => {
    let position = columns.indexOf(column);
    if (position < 0) position = columns.push(column) - 1;
    return position;
  };
  const positions = fields.map((field) => positionOf(field.column));
  const keyShown = fields.some((field) => field.column === primaryKey.column);
  const keyPosition = positionOf(primaryKey.column);
  const checked = new Set([primaryKey.name, ...fields.map((field) => field.name)]);
  const filterChecks: { position: number; check: CellRenderer }[] = [];
  for (const field of filtered) {
    if (checked.has(field.name)) continue;
    checked.add(field.name);
    filterChecks.push({ position: positionOf(field.column), check: cellRenderer(field) });
  }
  const keyRenderer = cellRenderer(primaryKey);
  return {
    columns,
    positions,
    keyPosition,
    keys: fields.map((field, index) => `${index === 0 ? '{' : ','}${JSON.stringify(field.name)}:`),
    renderers: fields.map(cellRenderer),
    keyCheck: keyShown ? undefined : keyRenderer,
    keyField: primaryKey,
    // A text key shows as its JSON text, one to one: compared as read, without rendering it on every read.
    keyShown: primaryKey.type === 'string' ? undefined : keyRenderer,
    filterChecks,
  };
}

/**
 * Refuses rows that repeat a key, as a snapshot load does (a view may give them: a join with one row per match).
 * Rows come in key order, so a repeat is the next row; pages are cut by key, so one would show an id twice or skip
 * the repeat after its last row, which is the look-ahead row `rows` includes. Keys are compared as records show
 * them, as a snapshot compares the values it read: keys the database holds apart may show alike (numerics or
 * bigints past a double's precision, timestamps within one millisecond), and keys it holds equal may differ in
 * text (a numeric's scale, `1.0` and `1.00`, and a double's sign of zero). Reading rounds and truncates in key
 * order, so keys that show alike are neighbours there.
 */
export function checkDistinctKeys(layout: LiveLayout, rows: readonly LiveRow[]): void {
  const { keyField, keyPosition, keyShown: shown } = layout;
  let previous: string | null = null;
  for (const row of rows) {
    const raw = row[keyPosition] ?? null;
    // A NULL key is the row check's to refuse (a nullable key field's nulls are no repeat).
    const key = raw === null || shown === undefined ? raw : shownKey(shown, raw);
    if (key !== null && key === previous) {
      throw new LiveRowInvalid(
        keyField.name,
        keyField.column,
        'a key another row holds too (a primary key is unique)',
      );
    }
    previous = key;
  }
}

/**
 * A key as its record shows it; a key no record could show (NaN) is compared by its text and left to the rendering
 * to refuse, which a look-ahead row never reaches: the page before it is served.
 */
function shownKey(shown: CellRenderer, raw: string): string {
  try {
    return shown(raw);
  } catch (error) {
    if (error instanceof LiveRowInvalid) return `\0${raw}`;
    throw error;
  }
}

/** A row as the JSON object of the layout's fields. */
export function liveRowJson(layout: LiveLayout, row: LiveRow): string {
  const { keys, positions, renderers, keyCheck, filterChecks } = layout;
  keyCheck?.(row[layout.keyPosition] ?? null);
  for (const { position, check } of filterChecks) check(row[position] ?? null);
  let json = '';
  for (let i = 0; i < keys.length; i++) {
    json += (keys[i] as string) + (renderers[i] as CellRenderer)(row[positions[i] as number] ?? null);
  }
  return `${json}}`;
}

/**
 * The renderer of a field's cells. The database writes most values in the exact form JSON output takes (a
 * canonical integer, a short plain decimal, a calendar date): those are checked and passed through; anything
 * else (and every empty or invalid cell) goes through the snapshot coercion, which decides the output.
 */
export function cellRenderer(field: CatalogField): CellRenderer {
  const coerced = (raw: string | null) => cellText(field, raw);
  switch (field.type) {
    case 'string':
      return (raw) => (raw === null || raw === '' ? coerced(raw) : JSON.stringify(raw));
    case 'integer':
      return (raw) => (raw !== null && isCanonicalInteger(raw) ? raw : coerced(raw));
    case 'number':
      return (raw) => (raw !== null && isCanonicalDecimal(raw) ? raw : coerced(raw));
    case 'date':
      return (raw) => (raw !== null && isDateText(raw) ? `"${raw}"` : coerced(raw));
    case 'boolean':
      return (raw) => (raw === 't' ? 'true' : raw === 'f' ? 'false' : coerced(raw));
    default:
      return coerced;
  }
}

function cellText(field: CatalogField, raw: string | null): string {
  const value = coerceValue(raw, field.type, false);
  // The checks a snapshot load applies to every cell, applied to each cell served.
  if (value === INVALID || (value === null && !field.nullable)) {
    const reason = value === null ? 'empty in a non-nullable field' : `not a valid ${field.type}`;
    throw new LiveRowInvalid(field.name, field.column, reason);
  }
  if (value !== null && field.type === 'timestamp')
    return JSON.stringify(new Date(value as number).toISOString());
  return JSON.stringify(value);
}

const ZERO = 48;
const NINE = 57;
const MINUS = 45;
/** Below 2^53 with room: every integer of this many digits is exact, and prints as written. */
const MAX_DIGITS = 15;

/** `0` or `-?[1-9][0-9]{0,14}`: what JSON.stringify(Number(text)) writes back unchanged. */
function isCanonicalInteger(text: string): boolean {
  const start = text.charCodeAt(0) === MINUS ? 1 : 0;
  const length = text.length - start;
  if (length < 1 || length > MAX_DIGITS) return false;
  const first = text.charCodeAt(start);
  if (first === ZERO) return text.length === 1;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < ZERO || code > NINE) return false;
  }
  return true;
}

/**
 * A plain decimal with at most 15 digits, no superfluous zero (`0.5`, `-12.25`, `7`), at least 1e-6 in magnitude:
 * such text names one double whose shortest form is the text itself, and JavaScript prints numbers of that
 * magnitude without an exponent, so JSON.stringify(Number(text)) === text. `-0` is left to the coercion.
 */
function isCanonicalDecimal(text: string): boolean {
  const point = text.indexOf('.');
  if (point < 0) return isCanonicalInteger(text);
  const start = text.charCodeAt(0) === MINUS ? 1 : 0;
  const whole = point - start;
  const fraction = text.length - point - 1;
  if (whole < 1 || fraction < 1 || text.charCodeAt(text.length - 1) === ZERO) return false;
  const leadingZero = text.charCodeAt(start) === ZERO;
  if (leadingZero && whole !== 1) return false;
  if ((leadingZero ? 0 : whole) + fraction > MAX_DIGITS) return false;
  for (let i = start; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (i !== point && (code < ZERO || code > NINE)) return false;
  }
  // 0.000000x is below 1e-6: JavaScript writes it with an exponent.
  return !leadingZero || !text.startsWith('000000', point + 1);
}
