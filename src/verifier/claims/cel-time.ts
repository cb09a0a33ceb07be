// Timestamp functions as the CEL language definition defines them, replacing @bufbuild/cel 0.6 overloads that
// differ: `timestamp(int)` read milliseconds instead of Unix seconds; `timestamp(string)` rolled impossible dates
// over (2024-02-30 became 2024-03-01) instead of failing; and the accessors (`getFullYear()`, `getDayOfYear()`, ...)
// went through the process's local time zone, so around daylight-saving changes they were off by an hour or a day
// depending on the host, and years 0-99 read as 1900-1999.
import { type CelFunc, CelScalar, celFunc, celMethod, objectType } from '@bufbuild/cel';
import { create } from '@bufbuild/protobuf';
import { type Timestamp, TimestampSchema } from '@bufbuild/protobuf/wkt';

const TIMESTAMP = objectType(TimestampSchema);
const { INT, STRING } = CelScalar;

/** The range of a CEL timestamp: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62135596800n;
const MAX_SECONDS = 253402300799n;
const DAY_MS = 86_400_000;

function timestampOf(seconds: bigint, nanos: number): Timestamp {
  if (seconds < MIN_SECONDS || seconds > MAX_SECONDS) throw new Error('timestamp out of range');
  return create(TimestampSchema, { seconds, nanos });
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

/** RFC 3339 text to a timestamp; every field must be in its range (no day 30 in February, no hour 24). */
function parseTimestamp(text: string): Timestamp {
  const match = RFC3339.exec(text);
  if (!match) throw new Error(`invalid timestamp '${text}'`);
  const [year, month, day, hour, minute, second, offsetHours, offsetMinutes] = [1, 2, 3, 4, 5, 6, 9, 10].map(
    (index) => Number(match[index] ?? 0),
  ) as [number, number, number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    throw new Error(`invalid timestamp '${text}': no such date`);
  }
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) {
    throw new Error(`invalid timestamp '${text}': no such time`);
  }
  const offset = (match[8] === '-' ? -1 : 1) * (offsetHours * 3600 + offsetMinutes * 60);
  const local = utcDate(year, month - 1, day).getTime() / 1000 + hour * 3600 + minute * 60 + second;
  const nanos = Number((match[7] ?? '').padEnd(9, '0'));
  return timestampOf(BigInt(local - offset), nanos);
}

/** A UTC midnight; setUTCFullYear, because Date.UTC reads years 0-99 as 1900-1999. */
function utcDate(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}

function daysInMonth(year: number, month: number): number {
  return utcDate(year, month, 0).getUTCDate();
}

const FIXED_ZONE = /^([+-]?)(\d{2}):(\d{2})$/;
const LONG_OFFSET = /^GMT(?:([+-])(\d{2}):(\d{2})(?::(\d{2}))?)?$/;
const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The offset from UTC, in seconds, of a time zone (`+05:30`, `UTC`, `Europe/Paris`) at an instant. */
function offsetSeconds(zone: string, instantMs: number): number {
  const fixed = FIXED_ZONE.exec(zone);
  if (fixed) return (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 3600 + Number(fixed[3]) * 60);
  let format = zoneFormats.get(zone);
  if (!format) {
    // Throws for a name that is not a time zone.
    format = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    if (zoneFormats.size >= 200) zoneFormats.clear();
    zoneFormats.set(zone, format);
  }
  const name = format.formatToParts(instantMs).find((part) => part.type === 'timeZoneName')?.value ?? '';
  const parts = LONG_OFFSET.exec(name);
  if (!parts) throw new Error(`cannot read the offset of time zone '${zone}'`);
  const seconds = Number(parts[2] ?? 0) * 3600 + Number(parts[3] ?? 0) * 60 + Number(parts[4] ?? 0);
  return parts[1] === '-' ? -seconds : seconds;
}

/** The wall clock of a timestamp in UTC or in a time zone, read with UTC getters (no host time zone). */
function wallClock(timestamp: Timestamp, zone: string | undefined): Date {
  const instantMs = Number(timestamp.seconds) * 1000;
  const offset = zone === undefined ? 0 : offsetSeconds(zone, instantMs);
  return new Date(instantMs + offset * 1000);
}

function dayOfYear(wall: Date): number {
  return Math.floor((wall.getTime() - utcDate(wall.getUTCFullYear(), 0, 1).getTime()) / DAY_MS);
}

type Accessor = (wall: Date, timestamp: Timestamp) => number;

const ACCESSORS: Record<string, Accessor> = {
  getFullYear: (wall) => wall.getUTCFullYear(),
  getMonth: (wall) => wall.getUTCMonth(),
  getDate: (wall) => wall.getUTCDate(),
  getDayOfMonth: (wall) => wall.getUTCDate() - 1,
  getDayOfWeek: (wall) => wall.getUTCDay(),
  getDayOfYear: dayOfYear,
  getHours: (wall) => wall.getUTCHours(),
  getMinutes: (wall) => wall.getUTCMinutes(),
  getSeconds: (wall) => wall.getUTCSeconds(),
  getMilliseconds: (_wall, timestamp) => Math.floor(timestamp.nanos / 1_000_000),
};

function accessorOverloads(name: string, read: Accessor): CelFunc[] {
  const call = (value: { message: Timestamp }, zone?: string) =>
    BigInt(read(wallClock(value.message, zone), value.message));
  return [
    celMethod(name, TIMESTAMP, [], INT, function () {
      return call(this);
    }),
    celMethod(name, TIMESTAMP, [STRING], INT, function (zone) {
      return call(this, zone);
    }),
  ];
}

export const timeFuncs: CelFunc[] = [
  celFunc('timestamp', [INT], TIMESTAMP, (seconds: bigint) => timestampOf(seconds, 0)),
  celFunc('timestamp', [STRING], TIMESTAMP, parseTimestamp),
  ...Object.entries(ACCESSORS).flatMap(([name, read]) => accessorOverloads(name, read)),
];
