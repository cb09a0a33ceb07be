// Bench baseline: the least any evaluator can do for a single-claim evaluation through one HTTP hop. Bare node:http
// in and out: parse the JSON body, make the connector's relay read (same path, headers and kept-alive sockets),
// answer the record's field. No auth, validation, planning, provenance, storage or audit. Its share of the relay's
// throughput is the ceiling the verifier's share is measured against. Prints a JSON ready line like the other
// bench children.
import { Agent, createServer, request } from 'node:http';
import { PURPOSE, relayReadPath } from './scenarios.ts';

export interface BareProxyReport {
  readonly event: 'ready';
  readonly pid: number;
  readonly url: string;
}

const [bind, relayUrl, relayToken] = process.argv.slice(2);
if (bind === undefined || relayUrl === undefined || relayToken === undefined) {
  console.error('usage: bare-proxy.ts <host:port> <relay url> <relay token>');
  process.exit(2);
}
const relay = new URL(relayUrl);
const agent = new Agent({ keepAlive: true, maxSockets: 16 });
// The two bench claims: the field each reads, and how its value is decided.
const CLAIMS: Record<string, { field: string; decide: (cell: unknown) => unknown }> = {
  enrolled: { field: 'enrolled', decide: (cell) => cell },
  large_household: { field: 'household_size', decide: (cell) => Number(cell) >= 5 },
};

function readRecord(id: string, field: string, requestId: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const upstream = request(
      {
        host: relay.hostname,
        port: relay.port,
        path: relayReadPath(id, [field]),
        headers: {
          authorization: `Bearer ${relayToken}`,
          accept: 'application/json',
          'data-purpose': PURPOSE,
          'x-request-id': requestId,
          'user-agent': 'ambit-verifier',
        },
        agent,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const rows = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: unknown[] }).data;
          if (response.statusCode !== 200 || rows.length !== 1) reject(new Error('no single record'));
          else resolve(rows[0] as Record<string, unknown>);
        });
      },
    );
    upstream.on('error', reject);
    upstream.end();
  });
}

let sequence = 0;
const server = createServer((incoming, outgoing) => {
  const chunks: Buffer[] = [];
  incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
  incoming.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
      target: { id: string };
      claims: [string];
    };
    const claim = CLAIMS[body.claims[0]] as (typeof CLAIMS)[string];
    // A request id of the verifier's length (a ULID).
    const requestId = `01JBAREPROXY${String(sequence++ % 1e14).padStart(14, '0')}`;
    readRecord(body.target.id, claim.field, requestId).then(
      (row) => {
        const answer = JSON.stringify({
          results: [{ claim_id: body.claims[0], value: claim.decide(row[claim.field]) }],
        });
        outgoing.writeHead(200, { 'content-type': 'application/json' });
        outgoing.end(answer);
      },
      () => {
        outgoing.writeHead(502);
        outgoing.end();
      },
    );
  });
});
const [host, port] = bind.split(':') as [string, string];
server.listen(Number(port), host, () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : Number(port);
  const report: BareProxyReport = { event: 'ready', pid: process.pid, url: `http://${host}:${actual}` };
  process.stdout.write(`${JSON.stringify(report)}\n`);
});
process.once('SIGTERM', () => process.exit(0));
