// Flattens a zod schema into one documentation row per dotted key (`datasets[].tables[].id`).
import { z } from 'zod';
import { formatDuration } from '../../src/platform/config/duration.ts';

export interface SchemaRow {
  /** Dotted key; list items are `[]`, record entries `<name>`. */
  readonly key: string;
  readonly type: string;
  /** Required within its parent mapping. */
  readonly required: boolean;
  /** Markdown for the default, or '' when there is none worth showing. */
  readonly defaultText: string;
  /** The schema's `.describe()` text followed by its constraints. */
  readonly description: string;
}

interface Def {
  readonly type: string;
  readonly innerType?: z.ZodType;
  readonly defaultValue?: unknown;
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly shape?: Record<string, z.ZodType>;
  readonly element?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly entries?: Record<string, string | number>;
  readonly values?: readonly unknown[];
  readonly format?: string;
  readonly checks?: readonly { _zod: { def: { check?: string; format?: string } } }[];
  readonly getter?: () => z.ZodType;
}

const defOf = (node: z.ZodType): Def => node._zod.def as unknown as Def;

/** A node with its optional/default/nullable wrappers removed, and what they said. */
interface Peeled {
  readonly node: z.ZodType;
  readonly required: boolean;
  readonly hasDefault: boolean;
  readonly defaultValue: unknown;
  readonly description: string | undefined;
}

function peel(schema: z.ZodType): Peeled {
  let node = schema;
  let required = true;
  let hasDefault = false;
  let defaultValue: unknown;
  let description: string | undefined;
  for (;;) {
    description ??= z.globalRegistry.get(node)?.description;
    const def = defOf(node);
    if (def.type === 'optional' && def.innerType) {
      required = false;
      node = def.innerType;
    } else if ((def.type === 'default' || def.type === 'prefault') && def.innerType) {
      required = false;
      if (!hasDefault) defaultValue = def.defaultValue;
      hasDefault = true;
      node = def.innerType;
    } else if (
      (def.type === 'nullable' || def.type === 'readonly' || def.type === 'catch') &&
      def.innerType
    ) {
      node = def.innerType;
    } else if (def.type === 'lazy' && def.getter) {
      node = def.getter();
    } else {
      return { node, required, hasDefault, defaultValue, description };
    }
  }
}

/** Every documented key under `schema`, depth first in declaration order. */
export function schemaRows(schema: z.ZodType, prefix = ''): SchemaRow[] {
  const rows: SchemaRow[] = [];
  const shape = defOf(peel(schema).node).shape ?? {};
  for (const [name, child] of Object.entries(shape))
    walk(child, prefix === '' ? name : `${prefix}.${name}`, rows);
  return rows;
}

function walk(schema: z.ZodType, key: string, rows: SchemaRow[]): void {
  const peeled = peel(schema);
  const def = defOf(peeled.node);
  const row = (type: string, constraints: readonly string[] = []) =>
    rows.push({
      key,
      type,
      required: peeled.required,
      defaultText: defaultText(peeled, isDuration(peeled.node)),
      description: [peeled.description, ...constraints].filter((part) => part).join(' '),
    });
  if (def.type === 'object') {
    row('mapping');
    rows.push(...schemaRows(peeled.node, key));
    return;
  }
  if (def.type === 'array' && def.element) {
    const element = peel(def.element).node;
    if (defOf(element).type === 'object') {
      row('list of mappings', sentence(constraintsOf(peeled.node)));
      rows.push(...schemaRows(element, `${key}[]`));
      return;
    }
    row(`list of ${leafType(element)}`, [
      ...sentence(constraintsOf(peeled.node)),
      ...sentence(constraintsOf(element), 'Each item'),
    ]);
    return;
  }
  if (def.type === 'record' && def.valueType) {
    const value = peel(def.valueType).node;
    const keyRules = def.keyType ? sentence(constraintsOf(def.keyType), 'Each name') : [];
    if (defOf(value).type === 'object') {
      row('mapping of name to mapping', keyRules);
      rows.push(...schemaRows(value, `${key}.<name>`));
      return;
    }
    row(`mapping of name to ${leafType(value)}`, [
      ...keyRules,
      ...sentence(constraintsOf(value), 'Each value'),
    ]);
    return;
  }
  if (def.type === 'union' && def.options && unionRows(def.options, key, rows, peeled.required)) return;
  row(leafType(peeled.node), sentence(constraintsOf(peeled.node)));
}

/**
 * A union of mappings told apart by one literal key (`source: {type: file | postgres}`): one row for the mapping,
 * then every variant's keys, each marked with the variants it belongs to when not all have it.
 */
function unionRows(
  options: readonly z.ZodType[],
  key: string,
  rows: SchemaRow[],
  required: boolean,
): boolean {
  const variants = options.map((option) => peel(option).node);
  if (!variants.every((variant) => defOf(variant).type === 'object')) return false;
  const shapes = variants.map((variant) => defOf(variant).shape ?? {});
  const tag = Object.keys(shapes[0] ?? {}).find((name) =>
    shapes.every((shape) => shape[name] && defOf(peel(shape[name]).node).type === 'literal'),
  );
  if (tag === undefined) return false;
  const labels = shapes.map((shape) => String(defOf(peel(shape[tag] as z.ZodType).node).values?.[0]));
  rows.push({
    key,
    type: 'mapping',
    required,
    defaultText: '',
    description: `One of ${labels.map((label) => `\`${tag}: ${label}\``).join(', ')}; the other keys depend on it.`,
  });
  const merged = new Map<string, { row: SchemaRow; owners: string[] }>();
  variants.forEach((variant, index) => {
    for (const row of schemaRows(variant, key)) {
      const seen = merged.get(row.key);
      if (seen) seen.owners.push(labels[index] as string);
      else merged.set(row.key, { row, owners: [labels[index] as string] });
    }
  });
  for (const { row, owners } of merged.values()) {
    if (row.key === `${key}.${tag}`) {
      rows.push({ ...row, type: labels.map((label) => `\`${label}\``).join(' \\| ') });
    } else if (owners.length < variants.length) {
      const only = owners.map((owner) => `\`${tag}: ${owner}\``).join(', ');
      rows.push({ ...row, description: `(${only}) ${row.description}`.trim() });
    } else {
      rows.push(row);
    }
  }
  return true;
}

function isDuration(node: z.ZodType): boolean {
  const def = defOf(node);
  return (
    def.type === 'pipe' &&
    def.in !== undefined &&
    def.out !== undefined &&
    defOf(def.out).type === 'transform'
  );
}

function leafType(node: z.ZodType): string {
  const def = defOf(node);
  switch (def.type) {
    case 'string':
      return def.format === 'url' ? 'URL' : 'string';
    case 'number': {
      const integer = (def.checks ?? []).some((check) => /int$/.test(check._zod.def.format ?? ''));
      return integer || /int$/.test(def.format ?? '') ? 'integer' : 'number';
    }
    case 'boolean':
      return 'boolean';
    case 'enum':
      return Object.values(def.entries ?? {})
        .map((value) => `\`${value}\``)
        .join(' \\| ');
    case 'literal':
      return (def.values ?? []).map((value) => `\`${String(value)}\``).join(' \\| ');
    case 'union':
      return (def.options ?? []).map((option) => leafType(peel(option).node)).join(' or ');
    case 'array':
      return def.element ? `list of ${leafType(peel(def.element).node)}` : 'list';
    case 'pipe':
      return isDuration(node) ? 'duration' : def.in ? leafType(def.in) : 'value';
    default:
      return def.type;
  }
}

/** Human constraints read from the node's JSON Schema, so every zod check spelling is covered. */
function constraintsOf(node: z.ZodType): string[] {
  if (isDuration(node)) return [];
  const json = z.toJSONSchema(node, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const parts: string[] = [];
  const {
    pattern,
    minLength,
    maxLength,
    minimum,
    maximum,
    exclusiveMinimum,
    exclusiveMaximum,
    minItems,
    maxItems,
  } = json;
  if (typeof pattern === 'string') parts.push(`must match \`${pattern}\``);
  if (typeof minLength === 'number' && minLength === maxLength)
    parts.push(`exactly ${plural(minLength, 'character')}`);
  else {
    if (minLength === 1) parts.push('not empty');
    else if (typeof minLength === 'number') parts.push(`at least ${plural(minLength, 'character')}`);
    if (typeof maxLength === 'number') parts.push(`at most ${plural(maxLength, 'character')}`);
  }
  if (typeof exclusiveMinimum === 'number') parts.push(`> ${exclusiveMinimum}`);
  else if (typeof minimum === 'number') parts.push(`>= ${minimum}`);
  if (typeof exclusiveMaximum === 'number') parts.push(`< ${exclusiveMaximum}`);
  else if (typeof maximum === 'number' && maximum < Number.MAX_SAFE_INTEGER) parts.push(`<= ${maximum}`);
  if (typeof minItems === 'number' && minItems > 0) parts.push(`at least ${plural(minItems, 'item')}`);
  if (typeof maxItems === 'number') parts.push(`at most ${plural(maxItems, 'item')}`);
  return parts;
}

/** Joins constraint phrases into one sentence, optionally about a part (`Each item`). */
function sentence(parts: readonly string[], subject?: string): string[] {
  if (parts.length === 0) return [];
  const text = parts.join(', ');
  return [subject ? `${subject}: ${text}.` : `${text.charAt(0).toUpperCase()}${text.slice(1)}.`];
}

function plural(count: number, noun: string): string {
  return `${count === 1 ? 'one' : count} ${noun}${count === 1 ? '' : 's'}`;
}

function defaultText(peeled: Peeled, duration: boolean): string {
  if (!peeled.hasDefault) return '';
  const value = typeof peeled.defaultValue === 'function' ? peeled.defaultValue() : peeled.defaultValue;
  if (duration && typeof value === 'number') return `\`${formatDuration(value)}\``;
  // Mapping defaults are spelled out by the rows of their keys.
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return '';
  return `\`${JSON.stringify(value)}\``;
}
