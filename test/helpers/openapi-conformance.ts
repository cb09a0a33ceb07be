// Checks a real answer against the operation that a service's own runtime OpenAPI document gives for it: the status is
// declared, the media type is declared for it, required headers are sent, headers clients act on are declared, and
// the body validates against the declared schema (JSON Schema 2020-12, `$ref`s resolved in the document's components).
import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Header = { required?: boolean; schema?: object; $ref?: string };
type Parameter = { name: string; in: string; required?: boolean; schema?: object };
type DeclaredResponse = {
  headers?: Record<string, Header>;
  content?: Record<string, { schema?: object }>;
};
type Operation = {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> };
  responses: Record<string, DeclaredResponse>;
};
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
 * Headers a client acts on (conditional requests, paging, caching, the auth challenge, retry timing, replays, the
 * services' own `x-ambit-*`): when a response carries one, the operation must declare it for that status, or
 * generated clients and caches never read it.
 */
const ACTIONABLE_HEADERS = [
  'etag',
  'link',
  'vary',
  'cache-control',
  'www-authenticate',
  'retry-after',
  'idempotent-replayed',
];
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
  /**
   * Checks a request the service accepted against `method docPath`: every query parameter of `url` is declared and
   * its value fits the declared schema, every required query or header parameter was sent, and a JSON `body` fits
   * the declared request body; so a client generated from the document can make the same request.
   */
  checkRequest(
    method: string,
    docPath: string,
    url: string,
    headers?: Record<string, string>,
    body?: unknown,
  ): void;
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
  /** A header as declared, or the `components.headers` entry it refers to. */
  const resolveHeader = (spec: Header): Header => {
    if (spec.$ref === undefined) return spec;
    const name = spec.$ref.replace(/^#\/components\/headers\//, '');
    const found = (document.components?.headers as Record<string, Header> | undefined)?.[name];
    assert.ok(found, `header ${spec.$ref} is declared`);
    return found;
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
        Object.entries(declared.headers ?? {}).map(([name, spec]) => [
          name.toLowerCase(),
          resolveHeader(spec),
        ]),
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
    checkRequest(method, docPath, url, headers = {}, body = undefined) {
      const where = `${method.toUpperCase()} ${url}`;
      const declared = operation(method, docPath);
      const parameters = declared.parameters ?? [];
      const query = new URL(url, 'http://relay.test').searchParams;
      for (const [name, value] of query) {
        const declared = parameters.find((each) => each.in === 'query' && each.name === name);
        assert.ok(declared, `${where}: query parameter ${name} not declared`);
        if (declared.schema) {
          const validate = compile(declared.schema);
          assert.ok(
            queryValues(value).some((candidate) => validate(candidate)),
            `${where}: ${name}=${value}: ${ajv.errorsText(validate.errors)}`,
          );
        }
      }
      const sentHeaders = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
      for (const each of parameters) {
        if (!each.required || each.in === 'path') continue;
        const sent = each.in === 'query' ? query.has(each.name) : sentHeaders.has(each.name.toLowerCase());
        assert.ok(sent, `${where}: required ${each.in} parameter ${each.name} not sent`);
      }
      if (body === undefined) {
        assert.ok(
          !declared.requestBody?.required,
          `${where}: accepted without the body it declares required`,
        );
      } else {
        const schema = declared.requestBody?.content?.['application/json']?.schema;
        assert.ok(schema, `${where}: no JSON request body declared`);
        const validate = compile(schema);
        assert.ok(validate(body), `${where}: request body: ${ajv.errorsText(validate.errors)}`);
      }
    },
    validator(method, docPath, status, mediaType) {
      const schema = operation(method, docPath).responses[String(status)]?.content?.[mediaType]?.schema;
      assert.ok(schema, `${method} ${docPath} ${status} ${mediaType} has a schema`);
      return compile(schema);
    },
  };
}

/**
 * What a query string value may stand for in a typed client: the text itself, or the number or boolean it spells
 * (never `null`: a query string has no null, the text `null` is a string).
 */
function queryValues(text: string): unknown[] {
  const values: unknown[] = [text];
  if (text.trim() !== '' && Number.isFinite(Number(text))) values.push(Number(text));
  if (text === 'true' || text === 'false') values.push(text === 'true');
  return values;
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
