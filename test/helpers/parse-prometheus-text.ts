// A strict reader of the Prometheus text exposition format 0.0.4, for tests: it throws on anything a scraper could
// misread (a sample before its TYPE, a family split in two, a repeated series, a bad escape, a histogram whose
// buckets are not cumulative or whose +Inf bucket differs from its count), and returns the families it read.

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface PromFamily {
  readonly name: string;
  readonly help: string | undefined;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly samples: PromSample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

export function parsePrometheusText(text: string): Map<string, PromFamily> {
  if (text !== '' && !text.endsWith('\n')) throw new Error('the exposition does not end with a newline');
  const families = new Map<string, PromFamily>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: PromFamily | undefined;
  const open = (name: string, at: number): PromFamily => {
    if (current?.name === name) return current;
    if (closed.has(name) || families.has(name)) throw new Error(`line ${at}: family ${name} is split in two`);
    if (current) closed.add(current.name);
    current = { name, help: undefined, type: 'untyped', samples: [] };
    families.set(name, current);
    return current;
  };
  text.split('\n').forEach((line, index) => {
    const at = index + 1;
    if (line === '') return;
    if (line.startsWith('#')) {
      const meta = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(line);
      if (!meta) return;
      const [, kind, name, rest] = meta as unknown as [string, string, string, string];
      if (!METRIC_NAME.test(name)) throw new Error(`line ${at}: bad metric name ${name}`);
      const family = open(name, at);
      if (kind === 'HELP') {
        if (family.help !== undefined) throw new Error(`line ${at}: second HELP for ${name}`);
        (family as { help: string }).help = unescapeText(rest, false, at);
      } else {
        if (!TYPES.has(rest)) throw new Error(`line ${at}: unknown type ${rest}`);
        if (family.samples.length > 0 || family.type !== 'untyped') {
          throw new Error(`line ${at}: TYPE for ${name} after its samples or twice`);
        }
        (family as { type: string }).type = rest;
      }
      return;
    }
    const sample = parseSample(line, at);
    const family = current && ownsSample(current, sample.name) ? current : open(sample.name, at);
    const key = `${sample.name}{${Object.entries(sample.labels)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(',')}}`;
    if (series.has(key)) throw new Error(`line ${at}: series ${key} appears twice`);
    series.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) if (family.type === 'histogram') checkHistogram(family);
  return families;
}

function ownsSample(family: PromFamily, name: string): boolean {
  if (name === family.name) return family.type !== 'histogram';
  if (family.type === 'histogram') {
    return [`${family.name}_bucket`, `${family.name}_sum`, `${family.name}_count`].includes(name);
  }
  return false;
}

function parseSample(line: string, at: number): PromSample {
  const head = /^([a-zA-Z_:][a-zA-Z0-9_:]*)/.exec(line);
  if (!head) throw new Error(`line ${at}: no metric name in ${JSON.stringify(line)}`);
  const name = head[1] as string;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith('{')) {
    rest = rest.slice(1);
    while (!rest.startsWith('}')) {
      const label = /^([^=]*)="/.exec(rest);
      if (!label || !LABEL_NAME.test(label[1] as string)) {
        throw new Error(`line ${at}: bad label in ${JSON.stringify(line)}`);
      }
      rest = rest.slice(label[0].length);
      let raw = '';
      while (rest[0] !== '"') {
        if (rest === '') throw new Error(`line ${at}: unterminated label value`);
        if (rest[0] === '\\') {
          raw += rest.slice(0, 2);
          rest = rest.slice(2);
        } else {
          raw += rest[0];
          rest = rest.slice(1);
        }
      }
      const labelName = label[1] as string;
      if (labelName in labels) throw new Error(`line ${at}: label ${labelName} twice`);
      labels[labelName] = unescapeText(raw, true, at);
      rest = rest.slice(1);
      if (rest.startsWith(',')) rest = rest.slice(1);
      else if (!rest.startsWith('}'))
        throw new Error(`line ${at}: expected , or } in ${JSON.stringify(line)}`);
    }
    rest = rest.slice(1);
  }
  const value = /^ (\S+)( -?\d+)?$/.exec(rest);
  if (!value) throw new Error(`line ${at}: bad value part ${JSON.stringify(rest)}`);
  return { name, labels, value: parseValue(value[1] as string, at) };
}

function parseValue(text: string, at: number): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  if (text === 'NaN') return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${at}: bad value ${text}`);
  return Number(text);
}

/** Label values escape backslash, double quote and newline; HELP text escapes backslash and newline. */
function unescapeText(raw: string, label: boolean, at: number): string {
  return raw.replace(/\\(.?)/g, (_, next: string) => {
    if (next === '\\') return '\\';
    if (next === 'n') return '\n';
    if (next === '"' && label) return '"';
    throw new Error(`line ${at}: bad escape \\${next}`);
  });
}

function checkHistogram(family: PromFamily): void {
  const groups = new Map<string, { buckets: [number, number][]; sum?: number; count?: number }>();
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels;
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
    const group = groups.get(key) ?? { buckets: [] };
    groups.set(key, group);
    if (sample.name.endsWith('_bucket')) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without le`);
      group.buckets.push([parseValue(le, 0), sample.value]);
    } else if (sample.name.endsWith('_sum')) group.sum = sample.value;
    else group.count = sample.value;
  }
  for (const [key, group] of groups) {
    const where = `${family.name}${key}`;
    if (group.sum === undefined || group.count === undefined) throw new Error(`${where}: no _sum or _count`);
    const last = group.buckets.at(-1);
    if (last?.[0] !== Number.POSITIVE_INFINITY) throw new Error(`${where}: the last bucket is not +Inf`);
    if (last[1] !== group.count) throw new Error(`${where}: +Inf bucket ${last[1]} != count ${group.count}`);
    group.buckets.forEach(([bound, value], i) => {
      const previous = group.buckets[i - 1];
      if (previous && !(bound > previous[0])) throw new Error(`${where}: bucket bounds not increasing`);
      if (previous && value < previous[1]) throw new Error(`${where}: buckets not cumulative`);
    });
  }
}
