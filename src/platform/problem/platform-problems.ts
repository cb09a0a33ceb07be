// Problems raised by the shared platform: authentication, HTTP limits, audit and internal failures.
import { createProblemFactory, type ProblemCatalog } from './problem.ts';

export const PLATFORM_PROBLEMS = {
  'auth.missing_credential': {
    status: 401,
    title: 'Missing credential',
    description:
      'No `Authorization: Bearer` or `x-api-key` credential was sent. The verifier answers it also for a static credential that is malformed or unknown (which keys exist is not told), and in OIDC mode for a credential that is not `Authorization: Bearer <token>`.',
  },
  'auth.malformed_credential': {
    status: 401,
    title: 'Malformed credential',
    description:
      'The credential header is not of the form `Bearer <token>`, is empty, or was sent twice; in OIDC mode, an `x-api-key` was sent, or the bearer token is not a well-formed JWT (a member named twice, a `crit` header, a claim of the wrong type, an empty `sub`). Relay only: the verifier answers `auth.missing_credential`, or `auth.invalid_token` for a token.',
  },
  'auth.invalid_credential': {
    status: 401,
    title: 'Invalid credential',
    description:
      'The API key is not recognised, or the bearer token is refused for a reason no other `auth.*` code names (a required claim such as `exp` missing, no `sub`, `client_id` or `azp`). Relay only: the verifier answers `auth.missing_credential`, or `auth.invalid_token` for a token.',
  },
  'auth.multiple_credentials': {
    status: 400,
    title: 'Multiple credentials',
    description:
      'Both `Authorization` and `x-api-key`, or one of them twice, were sent where only one is accepted (verifier).',
  },
  'auth.token_expired': {
    status: 401,
    title: 'Token expired',
    description: 'The bearer token has expired (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.token_not_yet_valid': {
    status: 401,
    title: 'Token not yet valid',
    description:
      'The bearer token `nbf` or `iat` lies in the future beyond the allowed leeway (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.token_signature_invalid': {
    status: 401,
    title: 'Token signature invalid',
    description:
      'The bearer token signature does not verify against the issuer keys (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.issuer_mismatch': {
    status: 401,
    title: 'Issuer mismatch',
    description:
      'The bearer token `iss` is not the configured issuer (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.audience_mismatch': {
    status: 401,
    title: 'Audience mismatch',
    description:
      'The bearer token `aud` contains none of the configured audiences (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.kid_unknown': {
    status: 401,
    title: 'Unknown key id',
    description:
      'The bearer token `kid` is not in the issuer JWKS, even after a refresh (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.algorithm_not_allowed': {
    status: 401,
    title: 'Algorithm not allowed',
    description:
      'The bearer token is signed with an algorithm outside `allowed_algorithms` (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.token_type_not_allowed': {
    status: 401,
    title: 'Token type not allowed',
    description:
      'The bearer token `typ` header is not in `allowed_token_types` (relay; the verifier answers `auth.invalid_token`).',
  },
  'auth.client_not_allowed': {
    status: 403,
    title: 'Client not allowed',
    description: 'The token was issued to a client outside `allowed_clients`.',
  },
  'auth.jwks_unavailable': {
    status: 503,
    title: 'Issuer keys unavailable',
    description: 'The issuer JWKS could not be fetched to verify the bearer token.',
  },
  'auth.scope_denied': {
    status: 403,
    title: 'Scope denied',
    description: 'The credential lacks the scope the route requires (or the resource is not visible to it).',
  },
  'auth.purpose_required': {
    status: 400,
    title: 'Purpose required',
    description:
      'The `Data-Purpose` header is missing or blank where the entity or aggregate requires it, or was sent twice (relay); on the verifier, an evaluation, a batch or one of its items has no purpose (no `Data-Purpose` header, body or item `purpose`; a header sent twice is `request.invalid` there).',
  },
  'http.not_found': { status: 404, title: 'Not found', description: 'No route matches the path.' },
  'http.method_not_allowed': {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but does not answer this method; `Allow` lists the methods it answers.',
  },
  'http.invalid_body': {
    status: 400,
    title: 'Invalid request body',
    description:
      'The request body is not valid JSON (empty where one is needed, cut short, an object member named twice, a `__proto__` or `constructor.prototype` key), is not UTF-8, or was not received in full or does not match its `Content-Length`. A body of another content type is `http.unsupported_media_type`.',
  },
  'http.not_acceptable': {
    status: 406,
    title: 'Not acceptable',
    description:
      'The `Accept` header of a metadata document request permits none of the media types the document is served as (a range with `q=0` excludes one); `detail` names it. Data routes do not negotiate; aggregates answer `aggregate.format_unsupported` and the verifier `claim.format_not_supported` instead.',
  },
  'http.precondition_failed': {
    status: 412,
    title: 'Precondition failed',
    description:
      'An `If-None-Match` on a request other than GET or HEAD (an aggregate `POST .../query`) matched the ETag of its answer (or was `*`): the answer has not changed since the client received it, and it is not sent again. A GET or HEAD is answered 304 instead.',
  },
  'http.unsupported_media_type': {
    status: 415,
    title: 'Unsupported media type',
    description:
      'The request body has a content type the route does not accept, or a content coding (`Content-Encoding` other than `identity`): bodies are read as sent.',
  },
  'http.malformed_request': {
    status: 400,
    title: 'Malformed request',
    description:
      'The request is not well-formed HTTP: a control character in a header value, a malformed request line or chunk, an HTTP/1.1 request without `Host` or one with several, or a `Transfer-Encoding` other than `chunked` (any on HTTP/1.0); it reached no route and is not audited.',
  },
  'http.invalid_query': {
    status: 400,
    title: 'Invalid query string',
    description:
      'The query string does not percent-decode to UTF-8 (a `%` not followed by two hex digits, or escaped bytes that are not UTF-8); no route read it.',
  },
  'http.expectation_failed': {
    status: 417,
    title: 'Expectation failed',
    description:
      'The request has an `Expect` header other than `100-continue`; it reached no route and is not audited.',
  },
  'http.headers_too_large': {
    status: 431,
    title: 'Headers too large',
    description:
      'The request headers exceed 64 KiB or 2,000 lines; the request reached no route and is not audited.',
  },
  'http.cors_denied': {
    status: 403,
    title: 'Origin not allowed',
    description: 'A CORS preflight came from an origin outside `server.cors.allowed_origins`.',
  },
  'http.shutting_down': {
    status: 503,
    title: 'Shutting down',
    description:
      'The process is stopping: it finishes the requests in flight but takes no new one, and closes the connection after this answer; an admin reload still running when the stop has waited its time for it is answered so too (relay). Retry; another process, or this one restarted, answers.',
  },
  'http.client_closed': {
    // The status nginx logs for the same event: no client receives it, but audit and metrics count it apart.
    status: 499,
    title: 'Client closed request',
    description:
      'The client closed its connection before the answer was ready. Nobody receives this problem: it is what the audit record (`status` 499) and the metrics say, and the work still waiting for the request stops (no read or rule starts for it, a running rule is stopped, no evaluation is stored).',
  },
  'internal.payload_too_large': {
    status: 413,
    title: 'Payload too large',
    description:
      'The request body exceeds 1 MiB (4 KiB on an admin listener, whatever the method). The verifier contract gives its 413 no `code`; this one has it.',
  },
  'internal.uri_too_long': {
    status: 414,
    title: 'URI too long',
    description: 'The request URI exceeds 8 KiB (relay; the verifier answers `request.uri_too_long`).',
  },
  'internal.timeout': {
    status: 504,
    title: 'Request timed out',
    description:
      'The request did not complete within `server.request_timeout`, or its headers or body did not arrive within `server.http1_header_read_timeout` or `server.request_body_timeout` (the connection then closes); on the verifier, also a source read the request had no time left for.',
  },
  'internal.unhandled': {
    status: 500,
    title: 'Internal error',
    description: 'An unexpected failure; the detail is generic and the cause is logged with the request id.',
  },
  'audit.write_failed': {
    status: 503,
    title: 'Audit unavailable',
    description:
      'The audit record could not be written and `audit.write_policy` is `fail_closed`. The relay answers 503, the verifier 500 (the status its contract gives).',
    statusIn: { verifier: 500 },
  },
} as const satisfies ProblemCatalog;

export const platformProblem = createProblemFactory(PLATFORM_PROBLEMS);
