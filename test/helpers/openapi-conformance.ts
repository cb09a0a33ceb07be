// Checks a real answer against the operation that a service's own runtime OpenAPI document gives for it: the status is
// declared, the media type is declared for it, required headers are sent, headers clients act on are declared, and
// the body validates against the declared schema (JSON Schema 2020-12, `$ref`s resolved in the document's components).
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Header = { required?: boolean; schema?: object };
type DeclaredResponse = {
  headers?: Record<string, Header>;
  content?: Record<string, { schema?: object }>;
};
type Operation = { responses: Record<string, DeclaredResponse> };
export type OpenApiDocument = {
  paths: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown>;
};

/** What a check needs of a response, from inject or a socket. */
export interface Answer {
  readonly statusCode: number;
  readonly headers: Record<string, string | string[] | number | undefined>;
  readonly body: string;
}

/**
 * Headers a client acts on (conditional requests, paging, the auth challenge, retry timing, replays, the services' own
 * `x-ambit-*`): when a response carries one, the operation must declare it for that status, or generated clients
 * never read it. (`Cache-Control` is on every answer; it is checked where an operation declares it.)
 */
const ACTIONABLE_HEADERS = ['etag', 'link', 'www-authenticate', 'retry-after', 'idempotent-replayed'];
const isActionable = (name: string) => ACTIONABLE_HEADERS.includes(name) || name.startsWith('x-ambit-');

const DOCUMENT_ID = 'https://openapi.test/document';

/** `type/subtype` and its parameters, lower-cased, `charset` left out (it says how the bytes are encoded). */
function parseMediaType(text: string): { base: string; params: Map<string, string> } {
  const [base = '', ...rest] = text.split(';').map((part) => part.trim());
  const params = new Map<string, string>();
  for (const part of rest) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    if (name !== 'charset')
      params.set(
        name,
        part
          .slice(equals + 1)
          .trim()
          .replace(/^"(.*)"$/, '$1'),
      );
  }
  return { base: base.toLowerCase(), params };
}

/** The declared media type the answer's matches: same type, and every parameter the declaration names. */
function declaredMediaType(declared: readonly string[], actual: string): string | undefined {
  const sent = parseMediaType(actual);
  return declared.find((key) => {
    const { base, params } = parseMediaType(key);
    return base === sent.base && [...params].every(([name, value]) => sent.params.get(name) === value);
  });
}

const isJson = (mediaType: string) => /^application\/([\w.-]+\+)?json$/.test(parseMediaType(mediaType).base);

export interface ConformanceChecker {
  /** Checks `answer` against `method docPath` of the document; returns the parsed body (JSON) or its text. */
  check(method: string, docPath: string, answer: Answer, label?: string): unknown;
  /** The compiled validator of a declared body schema, to show it rejects what it should. */
  validator(method: string, docPath: string, status: number, mediaType: string): ValidateFunction;
}

export function conformanceChecker(document: OpenApiDocument): ConformanceChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: document.components ?? {} });
  const compiled = new Map<string, ValidateFunction>();
  const compile = (schema: object) => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', `"${DOCUMENT_ID}#/components/`);
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    return validate;
  };
  const operation = (method: string, docPath: string) => {
    const found = document.paths[docPath]?.[method.toLowerCase()];
    assert.ok(found, `${method.toUpperCase()} ${docPath} is documented`);
    return found;
  };

  return {
    check(method, docPath, answer, label = `${method.toUpperCase()} ${docPath}`) {
      const where = `${label} → ${answer.statusCode}`;
      const declared = operation(method, docPath).responses[String(answer.statusCode)];
      assert.ok(declared, `${where}: status not declared (${answer.body.slice(0, 200)})`);
      const header = (name: string) => {
        const value = answer.headers[name.toLowerCase()];
        return Array.isArray(value) ? value.join(', ') : value === undefined ? undefined : String(value);
      };
      const documentedHeaders = new Map(
        Object.entries(declared.headers ?? {}).map(([name, spec]) => [name.toLowerCase(), spec]),
      );
      for (const [name, spec] of documentedHeaders) {
        const value = header(name);
        if (spec.required) assert.notEqual(value, undefined, `${where}: required header ${name} missing`);
        if (value !== undefined && spec.schema) {
          const validate = compile(spec.schema);
          assert.ok(
            validate(value),
            `${where}: header ${name}: ${value}: ${ajv.errorsText(validate.errors)}`,
          );
        }
      }
      for (const name of Object.keys(answer.headers).map((each) => each.toLowerCase())) {
        if (isActionable(name)) {
          assert.ok(documentedHeaders.has(name), `${where}: sends ${name} (${header(name)}), not declared`);
        }
      }
      const contentType = header('content-type');
      if (contentType === undefined || answer.body === '') {
        assert.equal(answer.body, '', `${where}: a body without a content type`);
        assert.ok(
          answer.statusCode === 304 || answer.statusCode === 204 || !declared.content,
          `${where}: declares content, answered none`,
        );
        return undefined;
      }
      const declaredTypes = Object.keys(declared.content ?? {});
      const mediaType = declaredMediaType(declaredTypes, contentType);
      assert.ok(mediaType, `${where}: ${contentType} not among [${declaredTypes.join(', ')}]`);
      const schema = declared.content?.[mediaType]?.schema;
      const body = isJson(mediaType) ? JSON.parse(answer.body) : answer.body;
      if (schema) {
        const validate = compile(schema);
        assert.ok(validate(body), `${where}: body: ${ajv.errorsText(validate.errors)}`);
      }
      return body;
    },
    validator(method, docPath, status, mediaType) {
      const schema = operation(method, docPath).responses[String(status)]?.content?.[mediaType]?.schema;
      assert.ok(schema, `${method} ${docPath} ${status} ${mediaType} has a schema`);
      return compile(schema);
    },
  };
}

/**
 * Asserts that every operation of `document` declares a `default` problem response (what any route may answer
 * besides what it lists: 500, 504), and that there are at least `minimum` operations, so an empty document fails.
 */
export function assertDefaultProblems(document: OpenApiDocument, minimum: number): void {
  let operations = 0;
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const fallback = operation.responses.default;
      assert.ok(fallback?.content?.['application/problem+json'], `${method} ${path} has a default problem`);
      operations += 1;
    }
  }
  assert.ok(operations >= minimum, `${operations} operations checked`);
}
