// The JSON-LD building blocks: node merging, language-tagged texts, compact IRIs and the controlled vocabularies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { manifestSchema } from '../../manifest-schema.ts';
import { frequencyIri, labelFromIri, languageIri } from './controlled-vocabularies.ts';
import { compact, mergeNodes, texts } from './json-ld.ts';

describe('JSON-LD building blocks', () => {
  it('merges nodes by @id: types united, first values kept, first-seen order', () => {
    const merged = mergeNodes([
      { '@id': 'urn:a', '@type': 'foaf:Agent', 'foaf:name': 'First' },
      { '@id': 'urn:b', '@type': 'dcat:Dataset' },
      {
        '@id': 'urn:a',
        '@type': ['cv:PublicOrganisation', 'foaf:Agent'],
        'foaf:name': 'Second',
        'dct:identifier': 'a',
      },
      { 'odrl:action': { '@id': 'odrl:use' } },
    ]);
    assert.deepEqual(merged, [
      {
        '@id': 'urn:a',
        '@type': ['foaf:Agent', 'cv:PublicOrganisation'],
        'foaf:name': 'First',
        'dct:identifier': 'a',
      },
      { '@id': 'urn:b', '@type': 'dcat:Dataset' },
      { 'odrl:action': { '@id': 'odrl:use' } },
    ]);
  });

  it('tags every translation, and a text of unknown language with the fallback', () => {
    assert.deepEqual(texts({ text: 'Persons', languages: {} }, 'fr'), {
      '@value': 'Persons',
      '@language': 'fr',
    });
    assert.deepEqual(texts({ text: 'Persons', languages: { en: 'Persons', fr: 'Personnes' } }, 'en'), [
      { '@value': 'Persons', '@language': 'en' },
      { '@value': 'Personnes', '@language': 'fr' },
    ]);
  });

  it('compacts only with the prefixes a document declares, and only to valid local names', () => {
    assert.equal(compact('http://www.w3.org/ns/odrl/2/use', ['odrl']), 'odrl:use');
    assert.equal(compact('http://www.w3.org/ns/odrl/2/use', ['dct']), 'http://www.w3.org/ns/odrl/2/use');
    assert.equal(compact('http://purl.org/dc/terms/a/b', ['dct']), 'http://purl.org/dc/terms/a/b');
  });

  it('maps every manifest update frequency to an EU frequency, and languages to the EU table', () => {
    const frequencies = manifestSchema.shape.datasets
      .unwrap()
      .element.shape.update_frequency.unwrap().options;
    for (const frequency of frequencies) {
      assert.match(
        frequencyIri(frequency),
        /^http:\/\/publications\.europa\.eu\/resource\/authority\/frequency\/[A-Z_0-9]+$/,
      );
      if (frequency !== 'unknown') assert.doesNotMatch(frequencyIri(frequency), /UNKNOWN$/, frequency);
    }
    assert.equal(languageIri('en'), 'http://publications.europa.eu/resource/authority/language/ENG');
    assert.equal(languageIri('pt-BR'), 'http://publications.europa.eu/resource/authority/language/POR');
    assert.equal(languageIri('xh'), 'http://id.loc.gov/vocabulary/iso639-1/xh');
    // Three-letter primary subtags are ISO 639-2/3 codes, never iso639-1 entries.
    assert.equal(languageIri('fra'), 'http://publications.europa.eu/resource/authority/language/FRA');
    assert.equal(languageIri('haw-US'), 'http://id.loc.gov/vocabulary/iso639-2/haw');
  });

  it('labels a concept known only by its IRI from its last segment', () => {
    assert.equal(labelFromIri('http://purl.org/adms/publishertype/NationalAuthority'), 'National authority');
    assert.equal(labelFromIri('http://data.europa.eu/m8g/OnlineChannel'), 'Online channel');
    assert.equal(labelFromIri('https://example.org/themes/social_protection/'), 'Social protection');
  });
});
