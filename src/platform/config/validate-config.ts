// Schema validation of a parsed config: every issue at once with its dotted path, unknown keys with a hint.
import type { z } from 'zod';
import { ConfigError, type ConfigIssue, joinPath } from './config-error.ts';
import { hint } from './did-you-mean.ts';

export interface LegacyKey {
  /** Path pattern of the object holding the key; `*` matches any array index or key. */
  readonly at: string;
  readonly key: string;
  readonly message: string;
}

/** Unknown keys shown in messages: the snake_case names config keys have (a secret is longer or of other characters). */
const SHOWN_KEY = /^[a-z][a-z0-9_]{0,30}$/i;

export function validateConfig<S extends z.ZodType>(
  schema: S,
  raw: unknown,
  legacy: readonly LegacyKey[] = [],
): z.infer<S> {
  const issues: ConfigIssue[] = [...findLegacyKeys(raw, legacy), ...findProtoKeys(raw)];
  const legacyPaths = new Set(issues.map((issue) => issue.path));
  if (raw === null || raw === undefined) {
    throw new ConfigError([{ path: '', code: 'config.parse_error', message: 'the config is empty' }]);
  }
  // reportInput lets messages tell a missing key from a value of the wrong type, and suggest enum values.
  let result: ReturnType<S['safeParse']>;
  try {
    result = schema.safeParse(raw, { reportInput: true }) as ReturnType<S['safeParse']>;
  } catch (error) {
    // The schema library spreads one element's issues into its parent's in a single call: a list of a hundred
    // thousand wrong entries inside another overflows the stack. Said where, rather than as a crash.
    if (!(error instanceof RangeError)) throw error;
    const largest = largestCollection(raw);
    throw new ConfigError([
      {
        path: joinPath(largest.path),
        code: 'config.validation_error',
        message: `holds ${largest.size} entries, too many wrong ones to list each: check what this list or mapping should hold`,
      },
    ]);
  }
  if (!result.success) {
    for (const issue of result.error.issues) {
      const path = joinPath(issue.path);
      if (issue.code === 'unrecognized_keys') {
        const known = knownKeysAt(schema, issue.path);
        for (const key of issue.keys) {
          const keyPath = path === '' ? key : `${path}.${key}`;
          if (legacyPaths.has(keyPath) || key === '__proto__') continue;
          if (key === '<<') {
            // YAML 1.2 has no merge keys: `<<: *defaults` is an ordinary key, not a variable reference.
            issues.push({
              path: keyPath,
              code: 'config.parse_error',
              message:
                'YAML merge keys (`<<`) are not supported: write the keys out, or alias a whole mapping',
            });
            continue;
          }
          if (!SHOWN_KEY.test(key)) {
            // Not a name anyone types as a key (pasted text, a token): it may be a secret. Not repeated.
            issues.push({
              path: path === '' ? '<key>' : `${path}.<key>`,
              code: 'config.parse_error',
              message: 'an unknown key that is not a plain name (not shown: it may be a secret)',
            });
            continue;
          }
          issues.push({
            path: keyPath,
            code: 'config.parse_error',
            // Under a union the key may belong to another variant (a file source's `path`): never suggest itself.
            message: `unknown key \`${key}\`${hint(
              key,
              known.filter((candidate) => candidate !== key),
            )}`,
          });
        }
      } else {
        issues.push({ path, code: 'config.validation_error', message: describe(issue) });
      }
    }
  }
  if (issues.length > 0) throw new ConfigError(issues);
  return deepFreeze(result.data as z.infer<S>);
}

/**
 * `__proto__` keys anywhere: parsed into a free-form mapping (a scope map, say) it would set the mapping's
 * prototype instead of adding an entry, so names the file never lists would find values through it.
 */
function findProtoKeys(value: unknown, path: (string | number)[] = []): ConfigIssue[] {
  if (value === null || typeof value !== 'object') return [];
  const issues: ConfigIssue[] = [];
  for (const [key, child] of Object.entries(value)) {
    const at = [...path, Array.isArray(value) ? Number(key) : key];
    if (key === '__proto__') {
      issues.push({
        path: joinPath(at),
        code: 'config.parse_error',
        message: 'a key named `__proto__` is not allowed',
      });
    } else {
      issues.push(...findProtoKeys(child, at));
    }
  }
  return issues;
}

function describe(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key') {
    // The library says only "Invalid key in record": the rule the key breaks tells what to write instead.
    const inner = issue.issues[0];
    if (inner === undefined) return 'is not an accepted key';
    if (inner.code === 'invalid_format' && inner.format === 'regex' && inner.message.startsWith('Invalid')) {
      return `key must match ${String(inner.pattern).replace(/^\/|\/$/g, '')}`;
    }
    return `key ${describe(inner)}`;
  }
  if (issue.code === 'invalid_value' && 'values' in issue) {
    // A schema's own message for a value it names (`enumWithHints`) says what to write instead.
    if (issue.input !== undefined && !issue.message.startsWith('Invalid')) return issue.message;
    const listed = issue.values.map((v) => JSON.stringify(v)).join(', ');
    // A missing enum (or literal) key is reported as such, not as a wrong value.
    if (issue.input === undefined) return `is required (one of ${listed})`;
    const values = issue.values.map((v) => String(v));
    const guess = typeof issue.input === 'string' ? hint(issue.input, values) : '';
    return `must be one of ${listed}${guess}`;
  }
  if (issue.code === 'invalid_type') {
    if (issue.input === undefined) return 'is required';
    // A schema's own message (`z.string({ error })`) says more than the generic one.
    if (!issue.message.startsWith('Invalid input')) return issue.message;
    // `.int()` reports a fraction as the type `int`: "must be int, not number" would puzzle.
    if (issue.expected === 'int' && typeof issue.input === 'number') return 'must be a whole number';
    return `must be ${issue.expected}, not ${kindOf(issue.input)}`;
  }
  if (issue.code === 'too_small' || issue.code === 'too_big') return describeBound(issue);
  if (issue.code === 'invalid_format' && issue.format === 'url') return 'must be an absolute URL';
  return issue.message;
}

function describeBound(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const limit = small ? issue.minimum : issue.maximum;
  if (issue.origin === 'string') {
    if (issue.exact) return `must be exactly ${limit} character${limit === 1 ? '' : 's'}`;
    if (small && limit === 1) return 'must not be empty';
    return `must be at ${small ? 'least' : 'most'} ${limit} characters`;
  }
  if (issue.origin === 'array' || issue.origin === 'set') {
    if (small && limit === 1) return 'must list at least one item';
    if (!small && limit === 1) return 'must list at most one item';
    return `must list at ${small ? 'least' : 'most'} ${limit} items`;
  }
  const operator = small ? (issue.inclusive ? '>=' : '>') : issue.inclusive ? '<=' : '<';
  return `must be ${operator} ${limit}`;
}

// Names the kind only: the value itself may have come from an expanded secret.
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  // YAML's .inf and .nan are numbers to typeof, which would read "must be number, not number".
  if (typeof value === 'number' && !Number.isFinite(value)) return 'a non-finite number (.inf or .nan)';
  if (typeof value === 'object') return 'a mapping';
  return typeof value;
}

function findLegacyKeys(raw: unknown, legacy: readonly LegacyKey[]): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  for (const rule of legacy) {
    const segments = rule.at === '' ? [] : rule.at.split('.');
    for (const [path, node] of walkPattern(raw, segments, [])) {
      if (node && typeof node === 'object' && !Array.isArray(node) && rule.key in node) {
        issues.push({
          path: joinPath([...path, rule.key]),
          code: 'config.parse_error',
          message: rule.message,
        });
      }
    }
  }
  return issues;
}

function* walkPattern(
  node: unknown,
  segments: string[],
  path: PropertyKey[],
): Generator<[PropertyKey[], unknown]> {
  if (segments.length === 0) {
    yield [path, node];
    return;
  }
  if (!node || typeof node !== 'object') return;
  const [head, ...rest] = segments as [string, ...string[]];
  const record = node as Record<string, unknown>;
  const keys = head === '*' ? Object.keys(record) : [head];
  for (const key of keys) {
    if (key in record) yield* walkPattern(record[key], rest, [...path, key]);
  }
}

/** The list or mapping with the most entries, by path (the first of equals). */
function largestCollection(root: unknown): { path: PropertyKey[]; size: number } {
  let best: { path: PropertyKey[]; size: number } = { path: [], size: 0 };
  const stack: { value: unknown; path: PropertyKey[] }[] = [{ value: root, path: [] }];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    const { value, path } = next;
    if (value === null || typeof value !== 'object') continue;
    const entries = Object.entries(value);
    if (entries.length > best.size) best = { path, size: entries.length };
    for (const [key, child] of entries) {
      if (child !== null && typeof child === 'object') {
        stack.push({ value: child, path: [...path, Array.isArray(value) ? Number(key) : key] });
      }
    }
  }
  return best;
}

/** Keys an object schema accepts at a path, walking through wrappers, arrays, records and unions. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let nodes: unknown[] = [schema];
  for (const segment of path) {
    nodes = nodes.flatMap((node) => childSchemas(unwrap(node), segment));
  }
  return [...new Set(nodes.flatMap((node) => objectKeys(unwrap(node))))];
}

interface Def {
  type?: string;
  innerType?: unknown;
  in?: unknown;
  out?: unknown;
  shape?: Record<string, unknown>;
  element?: unknown;
  valueType?: unknown;
  options?: unknown[];
  getter?: () => unknown;
}

function defOf(node: unknown): Def {
  return ((node as { _zod?: { def?: Def } })?._zod?.def ?? {}) as Def;
}

function unwrap(node: unknown): unknown[] {
  const def = defOf(node);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'catch':
      return unwrap(def.innerType);
    case 'pipe':
      return unwrap(def.in);
    case 'lazy':
      return def.getter ? unwrap(def.getter()) : [];
    case 'union':
      return (def.options ?? []).flatMap(unwrap);
    default:
      return [node];
  }
}

function childSchemas(nodes: unknown[], segment: PropertyKey): unknown[] {
  return nodes.flatMap((node) => {
    const def = defOf(node);
    if (def.type === 'object') return def.shape?.[String(segment)] ?? [];
    if (def.type === 'array') return [def.element];
    if (def.type === 'record') return [def.valueType];
    return [];
  });
}

function objectKeys(nodes: unknown[]): string[] {
  return nodes.flatMap((node) => {
    const def = defOf(node);
    return def.type === 'object' ? Object.keys(def.shape ?? {}) : [];
  });
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
