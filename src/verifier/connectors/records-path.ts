// The relay records read a binding makes, as a path and query string: built from per-binding parts worked out
// once, since a read is made for every evaluation and a URL object per read costs more than the rest of it.
import type { SourceBindingConfig } from '../config/schema.ts';

/** The parts of a binding's records path that never change, worked out on its first read. */
interface BindingPath {
  /** `/v1/datasets/<dataset>/entities/<entity>/records`, percent-encoded. */
  readonly records: string;
  /** The `fields` parameter, form-encoded. */
  readonly fields: string;
}

const bindingPaths = new WeakMap<SourceBindingConfig, BindingPath>();

/** The records read for one filter, as `URLSearchParams` would serialise it, without building a URL per read. */
export function recordsPath(
  basePath: string,
  binding: SourceBindingConfig,
  filter: string,
  value: string,
  limit: number,
): string {
  let parts = bindingPaths.get(binding);
  if (!parts) {
    // The lookup field is always read: a bulk answer is matched back to its values by it.
    const fields = [...new Set([binding.lookup.field, ...binding.fields])].sort();
    parts = {
      records: `/v1/datasets/${encodeURIComponent(binding.dataset)}/entities/${encodeURIComponent(binding.entity)}/records`,
      fields: formEncode(fields.join(',')),
    };
    bindingPaths.set(binding, parts);
  }
  return `${basePath}${parts.records}?${formEncode(filter)}=${formEncode(value)}&fields=${parts.fields}&limit=${limit}`;
}

const FORM_EXTRA = /[!'()~]|%20/g;
const FORM_EXTRA_CODES: Readonly<Record<string, string>> = {
  '!': '%21',
  "'": '%27',
  '(': '%28',
  ')': '%29',
  '~': '%7E',
  '%20': '+',
};

/**
 * application/x-www-form-urlencoded, byte for byte as `URLSearchParams` writes well-formed text. A lone surrogate
 * throws: `URLSearchParams` would send U+FFFD in its place, and so look up another value than the one asked (the
 * request schema refuses such text before any read).
 */
export function formEncode(text: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(text);
  } catch (error) {
    throw new TypeError('a lone surrogate cannot be sent to a source', { cause: error });
  }
  return encoded.replace(FORM_EXTRA, (match) => FORM_EXTRA_CODES[match] as string);
}
