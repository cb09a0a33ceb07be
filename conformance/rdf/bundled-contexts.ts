// The JSON-LD contexts conformance tests may load, by the URL documents cite them with: the official SEMIC and
// W3C context files of the standards folder. Nothing else is ever fetched (see offline-document-loader.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { standardsDir } from '../standards-dir.ts';

const SEMIC = 'https://semiceu.github.io/uri.semic.eu-generated';

/** Context URL -> file under STANDARDS_DIR. */
export const BUNDLED_CONTEXTS: Readonly<Record<string, string>> = {
  [`${SEMIC}/DCAT-AP/releases/3.0.1/context/dcat-ap.jsonld`]: 'dcat-ap/3.0.1/context/dcat-ap.jsonld',
  [`${SEMIC}/DCAT-AP/releases/3.0.0/html/examples/context.jsonld`]: 'dcat-ap/3.0.1/examples/context.jsonld',
  [`${SEMIC}/CPSV-AP/releases/3.2.0/context/cpsv-ap.jsonld`]: 'cpsv-ap/3.2.0/context/cpsv-ap.jsonld',
  [`${SEMIC}/CCCEV/releases/2.1.0/context/cccev-ap.jsonld`]: 'cccev/2.1.0/context/cccev-ap.jsonld',
  [`${SEMIC}/CCCEV/releases/2.00/context/cccev.jsonld`]: 'cccev/2.00/context/cccev.jsonld',
  'https://www.w3.org/ns/credentials/v2': 'w3c-vc/2.0/contexts/credentials-v2.jsonld',
  'https://www.w3.org/ns/credentials/examples/v2': 'w3c-vc/2.0/contexts/credentials-examples-v2.jsonld',
  'https://www.w3.org/ns/did/v1': 'did/contexts/did-v1.jsonld',
  'https://w3id.org/security/suites/jws-2020/v1': 'did/contexts/jws-2020-v1.jsonld',
  'https://w3id.org/security/multikey/v1': 'did/contexts/multikey-v1.jsonld',
  'https://w3id.org/security/jwk/v1': 'did/contexts/jwk-v1.jsonld',
};

const cache = new Map<string, unknown>();

/** The parsed context document for a URL, or undefined when it is not bundled. */
export function bundledContext(url: string): unknown {
  const file = BUNDLED_CONTEXTS[url];
  if (file === undefined) return undefined;
  let document = cache.get(url);
  if (document === undefined) {
    document = JSON.parse(readFileSync(resolve(standardsDir(), file), 'utf8'));
    cache.set(url, document);
  }
  return document;
}
