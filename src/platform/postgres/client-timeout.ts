// The pg driver's own limit on a statement (`query_timeout`): a backstop to the server's statement_timeout, whose
// error carries no SQLSTATE, only this message.

/** The driver's message when its `query_timeout` fires (the relay's live reads reuse it for theirs). */
export const CLIENT_TIMEOUT_MESSAGE = 'Query read timeout';

/** The client-side backstop fired: the statement may still be running on the server. */
export function isClientTimeout(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === undefined && message === CLIENT_TIMEOUT_MESSAGE;
}
