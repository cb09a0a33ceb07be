// Manifest texts (a string or a language map) as model texts, and the plain text JSON renderers emit.
import type { ManifestLocalizedText } from '../manifest-service-schema.ts';
import type { LocalizedText } from './metadata-model.ts';

export function localizedText(value: ManifestLocalizedText): LocalizedText {
  if (typeof value === 'string') return { text: value, languages: {} };
  // Language keys are sorted so the model (and every rendering of it) does not depend on YAML key order.
  const languages = Object.fromEntries(
    Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  const text = languages.en ?? Object.values(value)[0] ?? '';
  return { text, languages };
}

export function optionalText(value: ManifestLocalizedText | undefined): LocalizedText | undefined {
  return value === undefined ? undefined : localizedText(value);
}

export function plainText(value: string): LocalizedText {
  return { text: value, languages: {} };
}

/** The text for JSON documents; `null` when absent (JSON renderers never omit a documented member). */
export function textOrNull(value: LocalizedText | undefined): string | null {
  return value === undefined ? null : value.text;
}
