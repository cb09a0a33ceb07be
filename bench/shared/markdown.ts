// Markdown tables and the number formats the bench summaries print.
import { median } from './round-statistics.ts';

export interface Column {
  readonly title: string;
  /** Right-aligned for numbers. */
  readonly numeric?: boolean;
}

/** A header, an alignment row and one row per entry; cells are already formatted. */
export function markdownTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${columns.map((column) => column.title).join(' | ')} |`,
    `|${columns.map((column) => (column.numeric ? '---:' : '---')).join('|')}|`,
    ...rows.map((cells) => `| ${cells.join(' | ')} |`),
  ];
}

/** Columns from titles; a title ending in ':' is right-aligned (the ':' is dropped). */
export function columns(...titles: string[]): Column[] {
  return titles.map((title) =>
    title.endsWith(':') ? { title: title.slice(0, -1), numeric: true } : { title },
  );
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(0)}%`;
}

/** The headline ratio in bold, then each round's ratio: `**62%** (60% / 62% / 65%)`. */
export function ratioCell(ratio: number, ratios: readonly number[]): string {
  return `**${percent(ratio)}** (${ratios.map(percent).join(' / ')})`;
}

export function thousands(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** min–max and median of sampled values, e.g. load averages; `n/a` when nothing was sampled. */
export function formatRange(values: readonly number[]): string {
  if (values.length === 0) return 'n/a';
  return `${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)}, median ${median(values).toFixed(2)}`;
}
