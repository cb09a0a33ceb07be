// Controlled vocabularies DCAT-AP asks for (EU Publications Office authority tables, IANA media types), and
// labels for concepts we reference by IRI only.
import type { DatasetMeta } from '../../model/metadata-model.ts';

const AUTHORITY = 'http://publications.europa.eu/resource/authority';

export const ACCESS_RIGHTS: Readonly<Record<DatasetMeta['accessRights'], string>> = {
  public: `${AUTHORITY}/access-right/PUBLIC`,
  restricted: `${AUTHORITY}/access-right/RESTRICTED`,
  non_public: `${AUTHORITY}/access-right/NON_PUBLIC`,
};

/** Manifest `update_frequency` -> EU frequency; a school term (about three a year) is ANNUAL_3. */
const FREQUENCIES: Readonly<Record<string, string>> = {
  continuous: 'CONT',
  daily: 'DAILY',
  weekly: 'WEEKLY',
  termly: 'ANNUAL_3',
  monthly: 'MONTHLY',
  quarterly: 'QUARTERLY',
  annual: 'ANNUAL',
  irregular: 'IRREG',
  as_needed: 'IRREG',
  unknown: 'UNKNOWN',
};

export function frequencyIri(updateFrequency: string): string {
  return `${AUTHORITY}/frequency/${FREQUENCIES[updateFrequency] ?? 'UNKNOWN'}`;
}

export const JSON_FILE_TYPE = `${AUTHORITY}/file-type/JSON`;
export const JSON_MEDIA_TYPE = 'http://www.iana.org/assignments/media-types/application/json';
export const CSV_FILE_TYPE = `${AUTHORITY}/file-type/CSV`;
export const CSV_MEDIA_TYPE = 'http://www.iana.org/assignments/media-types/text/csv';

/**
 * ISO 639-1 -> the EU language table (ISO 639-3 codes); other languages use the Library of Congress IRI of their
 * code list: two letters ISO 639-1, three letters (BCP 47 takes the ISO 639-2/3 code then) ISO 639-2.
 */
const LANGUAGES: Readonly<Record<string, string>> = {
  ar: 'ARA',
  bg: 'BUL',
  cs: 'CES',
  da: 'DAN',
  de: 'DEU',
  el: 'ELL',
  en: 'ENG',
  es: 'SPA',
  et: 'EST',
  fi: 'FIN',
  fr: 'FRA',
  ga: 'GLE',
  hr: 'HRV',
  hu: 'HUN',
  it: 'ITA',
  lt: 'LIT',
  lv: 'LAV',
  mt: 'MLT',
  nl: 'NLD',
  pl: 'POL',
  pt: 'POR',
  ro: 'RON',
  ru: 'RUS',
  sk: 'SLK',
  sl: 'SLV',
  sv: 'SWE',
  sw: 'SWA',
  zh: 'ZHO',
};

const EU_CODES: ReadonlySet<string> = new Set(Object.values(LANGUAGES));

export function languageIri(tag: string): string {
  const primary = (tag.split('-')[0] ?? tag).toLowerCase();
  const eu =
    primary.length === 3 && EU_CODES.has(primary.toUpperCase()) ? primary.toUpperCase() : LANGUAGES[primary];
  if (eu !== undefined) return `${AUTHORITY}/language/${eu}`;
  return `http://id.loc.gov/vocabulary/iso639-${primary.length === 3 ? 2 : 1}/${primary}`;
}

/** A readable label for a concept known only by IRI: its last segment, words split (`NationalAuthority`). */
export function labelFromIri(iri: string): string {
  const last = iri.replace(/(?<![/#])[/#]+$/, '').replace(/^.*[/#:]/, '');
  const words = decodePercentEscapes(last)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim();
  return words === '' ? iri : words.charAt(0).toUpperCase() + words.slice(1).toLowerCase();
}

/**
 * Percent-escapes decoded where they spell UTF-8. A valid IRI may escape other bytes (`%E9` from a Latin-1 page,
 * `%FF`), on which decodeURIComponent throws: those stay as written rather than failing the whole document.
 */
function decodePercentEscapes(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}
