// A jsonld document loader that serves only bundled contexts: expanding a document never touches the network,
// and a document citing any other context fails loudly instead of expanding to less than it says.
import { bundledContext } from './bundled-contexts.ts';

export interface RemoteDocument {
  readonly contextUrl: null;
  readonly documentUrl: string;
  readonly document: unknown;
}

export class UnbundledContextError extends Error {
  readonly url: string;
  constructor(url: string) {
    super(`JSON-LD context ${url} is not bundled; the conformance loader never fetches`);
    this.name = 'UnbundledContextError';
    this.url = url;
  }
}

export async function offlineDocumentLoader(url: string): Promise<RemoteDocument> {
  const document = bundledContext(url);
  if (document === undefined) throw new UnbundledContextError(url);
  return { contextUrl: null, documentUrl: url, document };
}
