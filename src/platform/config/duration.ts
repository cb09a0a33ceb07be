// Human durations in config (`500ms`, `30s`, `10m`, `1h`, `7d`) parsed to milliseconds.
import { z } from 'zod';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNITS[match[2] as string] as number));
}

/**
 * The longest delay a Node timer honours: a longer one is clamped to 1 ms (with a TimeoutOverflowWarning), so
 * a setting that ends up in a timer must stay within it or it fires about every millisecond.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** A duration string, validated and turned into milliseconds, within bounds (never over `MAX_TIMER_MS`). */
export function durationMs(options: { min?: number; max?: number } = {}) {
  const bounds = { ...options, max: Math.min(options.max ?? MAX_TIMER_MS, MAX_TIMER_MS) };
  return z
    .string({ error: 'must be a duration with a unit, such as 500ms, 30s, 10m, 1h or 7d' })
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === undefined) {
        // The value is never quoted (here or below): a `${VAR}` may have expanded a secret into it.
        ctx.addIssue({ code: 'custom', message: 'is not a duration like 500ms, 30s, 10m, 1h or 7d' });
        return z.NEVER;
      }
      if ((bounds.min !== undefined && ms < bounds.min) || ms > bounds.max) {
        ctx.addIssue({ code: 'custom', message: `is out of range (${rangeText(bounds)})` });
        return z.NEVER;
      }
      return ms;
    });
}

function rangeText({ min, max }: { min?: number; max?: number }): string {
  if (min !== undefined && max !== undefined) return `${formatDuration(min)} to ${formatDuration(max)}`;
  return min !== undefined ? `at least ${formatDuration(min)}` : `at most ${formatDuration(max ?? 0)}`;
}

/** The shortest exact spelling of a duration: 300000 -> `5m`, 1500 -> `1500ms`. */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    const size = UNITS[unit] as number;
    if (ms !== 0 && ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}
