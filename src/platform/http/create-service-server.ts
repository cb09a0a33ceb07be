// A service's HTTP server from its validated `server` and `audit` blocks: one audit record per response.
import type { FastifyInstance } from 'fastify';
import type { AuditRecord } from '../audit/audit-envelope.ts';
import { type AuditWriter, createConfiguredAuditWriter } from '../audit/create-audit-writer.ts';
import type { Clock } from '../clock.ts';
import type { AuditBlock } from '../config/audit-config-schema.ts';
import type { Logger } from '../log.ts';
import type { Problem } from '../problem/problem.ts';
import type { Random } from '../random.ts';
import { type CorsHeaders, createHttpServerApp } from './create-server.ts';
import type { RouteReply, RouteRequest } from './route-types.ts';

export interface ServiceServerConfig {
  readonly request_timeout: number;
  readonly max_connections: number;
  readonly cors: { readonly allowed_origins: readonly string[] };
  readonly trust_proxy: { readonly enabled: boolean; readonly trusted_proxies: readonly string[] };
  /** The relay's listener time-outs (the reference's keys), in milliseconds; the platform defaults without them. */
  readonly http1_header_read_timeout?: number;
  readonly request_body_timeout?: number;
}

export interface ServiceServerOptions {
  readonly server: ServiceServerConfig;
  readonly audit: AuditBlock;
  readonly auditSecret: Buffer;
  /** Relative audit paths resolve against the config file's folder. */
  readonly baseDir: string;
  readonly deps: { readonly logger: Logger; readonly clock: Clock; readonly random: Random };
  /** Request and response headers of the service's own that listed origins may use. */
  readonly corsHeaders?: CorsHeaders;
  /** The problem a failed audit write answers under `fail_closed`; by default the platform's (503). */
  readonly auditWriteFailed?: (cause: unknown) => Problem;
  /** Problems the service's contract names otherwise than the platform, by platform code. */
  readonly serviceProblems?: Readonly<Record<string, () => Problem>>;
  /** The service's own audit record for one response (an object, or its JSON text). */
  buildRecord(request: RouteRequest, reply: RouteReply): AuditRecord;
  /**
   * Records that precede the response's own, written in the same append so that they stand or fall with it (a
   * batch's item events: none may say an item was answered when its batch's record failed).
   */
  recordsBefore?(request: RouteRequest, reply: RouteReply): readonly AuditRecord[];
  /** Told when a request whose client went away has been answered and its deadline brought forward. */
  readonly onClientGone?: () => void;
}

export function createServiceServer(options: ServiceServerOptions): {
  app: FastifyInstance;
  audit: AuditWriter;
} {
  const { server, audit: block, deps } = options;
  const audit = createConfiguredAuditWriter(block, {
    baseDir: options.baseDir,
    secret: options.auditSecret,
    clock: deps.clock,
    random: deps.random,
    logger: deps.logger,
    ...(options.auditWriteFailed === undefined ? {} : { writeFailed: options.auditWriteFailed }),
  });
  const app = createHttpServerApp({
    logger: deps.logger,
    clock: deps.clock,
    random: deps.random,
    requestTimeoutMs: server.request_timeout,
    corsAllowedOrigins: server.cors.allowed_origins,
    ...(options.corsHeaders === undefined ? {} : { corsHeaders: options.corsHeaders }),
    trustProxy: server.trust_proxy.enabled ? server.trust_proxy.trusted_proxies : false,
    maxConnections: server.max_connections,
    ...(server.http1_header_read_timeout === undefined
      ? {}
      : { headersTimeoutMs: server.http1_header_read_timeout }),
    ...(server.request_body_timeout === undefined ? {} : { bodyTimeoutMs: server.request_body_timeout }),
    ...(options.serviceProblems === undefined ? {} : { serviceProblems: options.serviceProblems }),
    ...(options.onClientGone === undefined ? {} : { onClientGone: options.onClientGone }),
    commitResponse(request, reply, done) {
      // Probes are not audited unless configured: they are noise, not consultations.
      const kind = (request.ctx.audit as { endpointKind?: string }).endpointKind;
      if (!block.include_health && (kind === 'health' || kind === 'ready')) {
        done();
        return;
      }
      const before = options.recordsBefore?.(request, reply) ?? [];
      if (before.length === 0) {
        audit.enqueue(options.buildRecord(request, reply), done);
        return;
      }
      enqueueTogether(audit, [...before, options.buildRecord(request, reply)], done);
    },
  });
  return { app, audit };
}

/**
 * Queues records in one event-loop turn, so that one append writes them (group commit); `done` runs once,
 * with the first failure if any.
 */
function enqueueTogether(
  audit: AuditWriter,
  records: readonly AuditRecord[],
  done: (error?: unknown) => void,
): void {
  let pending = records.length;
  let failure: unknown;
  for (const record of records) {
    audit.enqueue(record, (error) => {
      if (error !== undefined && failure === undefined) failure = error;
      if (--pending === 0) done(failure);
    });
  }
}
