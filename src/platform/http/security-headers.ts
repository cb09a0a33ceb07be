// Headers on every response (relay contract §2.13): no sniffing, no framing, no referrer, a strict CSP.
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'same-origin',
};

/**
 * What a response says about caches when its route says nothing: every answer depends on the caller (scopes,
 * purpose, the credential a page is bound to), so no shared cache may keep it, and a client's own cache revalidates
 * (ETags). `x-api-key`, unlike `Authorization`, does not by itself keep a shared cache from storing an answer.
 */
export const DEFAULT_CACHE_CONTROL = 'private, no-cache';

// The docs page loads only its own scripts and stylesheets; Swagger UI's icons are data: SVGs in its CSS, and
// it sets styles through the DOM (allowed without 'unsafe-inline'). No form may submit anywhere, so a credential
// typed into the page can never end up in a URL.
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";
