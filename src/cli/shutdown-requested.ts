// The signals that stop `ambit relay serve`, `ambit verifier serve` and `ambit demo`: listened for from before the
// start (which a signal stops cleanly) until the process exits (a drain is not cut by a second signal).

/**
 * What SIGHUP does: a service ignores it and says `ignore` (it often means "reload", and Node's default would end
 * the process at once); `'stop'` treats it as SIGTERM, for the demo, which a terminal that closes sends it.
 */
export type HangupAction = { readonly ignore: string } | 'stop';

/**
 * Resolves on the first SIGINT or SIGTERM; a worker also stops when its primary goes away (the IPC channel closes).
 * The handlers stay for the whole drain: a signal sent to the process group (Ctrl-C, systemd's default
 * KillMode=control-group) reaches a worker from the sender and again from its primary, and Node's default action
 * for that second signal would kill the worker mid-drain. So a draining process ignores SIGTERM, and a worker
 * ignores every signal; a second SIGINT (Ctrl-C again) exits a single process or a primary at once, which takes
 * its workers with it (a worker exits when its primary's channel closes).
 */
export function shutdownRequested(
  role: 'single' | 'primary' | 'worker',
  err: (line: string) => void,
  hangup: HangupAction = { ignore: 'SIGHUP ignored: reload with POST /admin/v1/reload; stop with SIGTERM' },
): Promise<void> {
  return new Promise((resolve) => {
    let draining = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (!draining) {
        draining = true;
        resolve();
      } else if (signal === 'SIGINT' && role !== 'worker') {
        err('second interrupt: exiting without draining');
        process.exit(130);
      }
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Sources reload by their refresh mode or POST /admin/v1/reload, never on SIGHUP.
    process.on('SIGHUP', () => {
      if (hangup === 'stop') onSignal('SIGTERM');
      else if (role !== 'worker') err(hangup.ignore);
    });
    if (role === 'worker') process.once('disconnect', () => onSignal('SIGTERM'));
  });
}

/**
 * Ends a start stopped by SIGINT or SIGTERM, once what it opened is closed (listeners, audit sink, pools, workers):
 * a source load in progress cannot be cancelled (a large file, a slow database query) and would keep the process
 * alive until it is over, so the process ends here, with a drain's exit status.
 */
export function endStoppedStart(notice: ((line: string) => void) | undefined): never {
  notice?.('shutting down: stopped while starting');
  process.exit(0);
}
