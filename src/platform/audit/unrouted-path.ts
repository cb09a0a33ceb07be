// The audit `path` of a request no route matched. Its path is the client's text, which may hold a record id or a
// national identifier (`/records/FAKE-412781` sent with the wrong method, with a trailing slash, with bad escapes,
// or too long): it is never written out; matched requests record their route pattern.
export const UNROUTED_PATH = '(no route)';
