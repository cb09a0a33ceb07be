// JSON numbers whose text is not zero but that JSON.parse reads as 0 (`1e-400`, or a fraction 400 zeros long). A
// filter value must not lose its meaning that way: compared as 0, `{"from": 1e-400}` would take the zeros the caller
// left out. The parsed body can no longer tell such a number from 0, so its text is read.

// A string (skipped whole, so digits inside it are not numbers) or a number's digits before and after the point.
const TOKEN = /"(?:[^"\\]|\\.)*"|-?(\d+)(?:\.(\d+))?(?:[eE][+-]?\d+)?/g;

/** Whether `text`, which must be valid JSON (parse it first), holds a nonzero number that reads as 0. */
export function holdsUnderflowingNumber(text: string): boolean {
  for (const match of text.matchAll(TOKEN)) {
    const whole = match[1];
    if (whole === undefined) continue;
    if (/[1-9]/.test(whole + (match[2] ?? '')) && Number(match[0]) === 0) return true;
  }
  return false;
}
