// A fake relay's records route over fixed rows, for connector tests: it answers the rows whose `national_id` is
// asked (`=` or `.in`, compared as text), at most `limit` of them with `has_more` as a relay pages them, in a
// relay's envelope; a row's `raw` member is written as it is.
import type { IncomingMessage, ServerResponse } from 'node:http';

export function nationalIdTable(rows: readonly Record<string, unknown>[]) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const query = new URL(request.url ?? '', 'http://x').searchParams;
    const asked = query.get('national_id.in')?.split(',') ?? [query.get('national_id')];
    const found = rows.filter((row) => asked.includes(String(row.national_id)));
    const limit = Number(query.get('limit') ?? found.length);
    const data = found.slice(0, limit);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      `{"data":[${data.map((row) => row.raw ?? JSON.stringify(row)).join(',')}],"pagination":{"has_more":${found.length > data.length}}}`,
    );
  };
}

/** A fake relay that answers every read with one living person, `FAKE-1`. */
export function oneLivingPerson(_request: IncomingMessage, response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ data: [{ national_id: 'FAKE-1', deceased: false }] }));
}

/** `handler`, counting the reads it answers. */
export function countingReads(handler: (request: IncomingMessage, response: ServerResponse) => void) {
  let reads = 0;
  return {
    handler(request: IncomingMessage, response: ServerResponse): void {
      reads++;
      handler(request, response);
    },
    reads: () => reads,
  };
}
