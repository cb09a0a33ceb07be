// Human durations in config (`500ms`, `30s`, `10m`, `1h`, `7d`) parsed to milliseconds.
import { z } from 'zod';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)\s*$/.exec(text);
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNITS[match[2] as string] as number));
}

/** A duration string, validated and turned into milliseconds, with optional bounds. */
export function durationMs(options: { min?: number; max?: number } = {}) {
  return z.string().transform((text, ctx) => {
    const ms = parseDuration(text);
    if (ms === undefined) {
      ctx.addIssue({
        code: 'custom',
        message: `\`${text}\` is not a duration like 500ms, 30s, 10m, 1h or 7d`,
      });
      return z.NEVER;
    }
    if ((options.min !== undefined && ms < options.min) || (options.max !== undefined && ms > options.max)) {
      ctx.addIssue({ code: 'custom', message: `\`${text}\` is out of range` });
      return z.NEVER;
    }
    return ms;
  });
}
