// The route's own step for a response whose audit commit succeeded (RequestContext.onCommitted), before it is written.

/** Runs `step`, if any, then `write`, whatever the step's outcome: the response's record stands either way. */
export function afterCommit(step: (() => Promise<void>) | undefined, write: () => void): void {
  if (step === undefined) write();
  else step().then(write, write);
}
