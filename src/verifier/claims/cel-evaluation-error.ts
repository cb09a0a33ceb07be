// How a CEL evaluation fails: the reason (recorded in audit as `cel.<reason>`) and a message for the logs.

export class CelEvaluationError extends Error {
  readonly reason: 'error' | 'timeout' | 'too_large' | 'worker_failed';
  constructor(reason: CelEvaluationError['reason'], message: string) {
    super(message);
    this.name = 'CelEvaluationError';
    this.reason = reason;
  }
}

/** Refused because no worker could be started: `message` says why the last start failed. */
export function cannotStart(message: string): CelEvaluationError {
  return new CelEvaluationError('worker_failed', `CEL workers cannot start: ${message}`);
}
