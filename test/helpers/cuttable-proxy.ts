// A TCP proxy in front of a database that a test cuts (every connection dropped, the port closed) and restores.
import type { AddressInfo } from 'node:net';
import { connect, createServer as createTcpServer, type Socket, type Server as TcpServer } from 'node:net';

/** A TCP proxy to the database that can be cut and restored on the same port. */
export class CuttableProxy {
  private server: TcpServer | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  private readonly host: string;
  private readonly targetPort: number;
  constructor(host: string, targetPort: number) {
    this.host = host;
    this.targetPort = targetPort;
  }
  async open(): Promise<void> {
    const server = createTcpServer((client) => {
      const upstream = connect(this.targetPort, this.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }
  async cut(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}

/** A proxy to the database at `databaseUrl`, open, and the URL that reaches the database through it. */
export async function proxiedDatabase(databaseUrl: string): Promise<{ proxy: CuttableProxy; url: string }> {
  const url = new URL(databaseUrl);
  const proxy = new CuttableProxy(url.hostname, Number(url.port || 5432));
  await proxy.open();
  url.host = `127.0.0.1:${proxy.port}`;
  return { proxy, url: url.toString() };
}
