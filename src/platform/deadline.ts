// A request's deadline as the work done for it reads it, step by step: it can move earlier after the work started.

/**
 * When the request is answered whatever happens (a `performance.now()` instant): no step starts later. Read `at`
 * at each decision rather than keeping it: it moves to the moment the request is answered early (its client went
 * away), so queued reads and rules are dropped then rather than at the time-out.
 */
export interface Deadline {
  readonly at: number;
}

/** A deadline that never moves. */
export function fixedDeadline(at: number): Deadline {
  return { at };
}
