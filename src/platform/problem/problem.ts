// The one error type a client can see: an RFC 9457 problem with a stable dotted code.

export interface ProblemEntry {
  readonly status: number;
  readonly title: string;
  /** One line for docs/errors.md: when the problem occurs. */
  readonly description: string;
  /** Services whose contract gives this code another status, and that status (`{ verifier: 500 }`). */
  readonly statusIn?: Readonly<Record<string, number>>;
}

export type ProblemCatalog = Readonly<Record<string, ProblemEntry>>;

export const PROBLEM_TYPE_BASE = 'https://ambit.dev/problems/';

export class Problem extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  readonly extras: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    code: string,
    entry: ProblemEntry,
    detail?: string,
    options?: { extras?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown },
  ) {
    super(
      `${code}: ${detail ?? entry.title}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.name = 'Problem';
    this.code = code;
    this.status = entry.status;
    this.title = entry.title;
    this.detail = detail ?? entry.title;
    this.extras = options?.extras ?? {};
    this.headers = options?.headers ?? {};
  }
}

/**
 * A copy of `problem` with members and headers added (status, title, detail and cause kept). A copy, not a change:
 * one problem may be shared, such as a source read's failure by several claims or evaluations.
 */
export function withAdded(
  problem: Problem,
  added: { extras?: Record<string, unknown>; headers?: Record<string, string> },
): Problem {
  const entry = { status: problem.status, title: problem.title, description: '' };
  return new Problem(problem.code, entry, problem.detail, {
    extras: { ...problem.extras, ...added.extras },
    headers: { ...problem.headers, ...added.headers },
    ...(problem.cause === undefined ? {} : { cause: problem.cause }),
  });
}

export function problemTypeUri(code: string): string {
  return PROBLEM_TYPE_BASE + code.replaceAll('.', '/');
}

export interface ProblemOptions {
  extras?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * A typed factory over one catalogue: `fail('auth.scope_denied', 'required scope: x')`. With `service`, a code
 * whose `statusIn` names that service gets the status given there.
 */
export function createProblemFactory<C extends ProblemCatalog>(catalog: C, service?: string) {
  return (code: keyof C & string, detail?: string, options?: ProblemOptions): Problem => {
    const entry = catalog[code];
    if (!entry) throw new TypeError(`unknown problem code ${code}`);
    const status = service === undefined ? undefined : entry.statusIn?.[service];
    return new Problem(code, status === undefined ? entry : { ...entry, status }, detail, options);
  };
}

export function isProblem(value: unknown): value is Problem {
  return value instanceof Problem;
}
