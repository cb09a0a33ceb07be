// A wrk Lua script that cycles through pre-built requests (one per subject), so every request reads another
// record; the requests are formatted once per thread at start, which keeps wrk's own cost per request flat.
import { writeFileSync } from 'node:fs';

export interface ScriptedRequests {
  readonly method: 'GET' | 'POST';
  readonly headers: Readonly<Record<string, string>>;
  /** Path and query of each request, in order. */
  readonly paths: readonly string[];
  /** Body of each request (POST), in the same order as `paths`. */
  readonly bodies?: readonly string[];
}

export function writeRequestScript(path: string, requests: ScriptedRequests): void {
  const lines = [`wrk.method = ${luaString(requests.method)}`];
  for (const [name, value] of Object.entries(requests.headers)) {
    lines.push(`wrk.headers[ ${luaString(name)} ] = ${luaString(value)}`);
  }
  // Formatted in init, once wrk has added the Host header.
  lines.push('local requests = {}', 'init = function(args)');
  requests.paths.forEach((requestPath, index) => {
    const body = requests.bodies?.[index];
    lines.push(
      `  requests[${index + 1}] = wrk.format(nil, ${luaString(requestPath)}, nil, ${body === undefined ? 'nil' : luaString(body)})`,
    );
  });
  lines.push(
    'end',
    'local next = 0',
    'request = function()',
    '  next = next % #requests + 1',
    '  return requests[next]',
    'end',
  );
  writeFileSync(path, `${lines.join('\n')}\n`);
}

/** A Lua long-bracket string literal; the level is raised until the text cannot close it early. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}
