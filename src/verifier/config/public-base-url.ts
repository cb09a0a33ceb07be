// `evidence.api_base_url`: published in discovery (`<base>/v1/claims`) and as the OpenAPI server clients call.
// Another scheme is nothing a client can call, a query or fragment would swallow the paths appended to it, and
// credentials would be published to every caller; each is refused at load. Messages never quote the value.
import { z } from 'zod';

function hasExtras(url: URL, text: string): boolean {
  // `https://host/?` and `https://host/#` parse to an empty search and hash: the text shows them.
  return url.username !== '' || url.password !== '' || /[?#]/.test(text);
}

export const publicBaseUrl = z
  .url()
  .max(2048)
  .superRefine((text, ctx) => {
    const url = new URL(text);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') {
      ctx.addIssue({ code: 'custom', message: 'must be an http or https URL' });
    } else if (hasExtras(url, text)) {
      ctx.addIssue({ code: 'custom', message: 'must not carry a query, fragment or credentials' });
    }
  });
