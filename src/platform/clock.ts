// Injected time, so tests never depend on the wall clock.
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export function fixedClock(iso: string): Clock & { advance(ms: number): void } {
  let t = Date.parse(iso);
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}
