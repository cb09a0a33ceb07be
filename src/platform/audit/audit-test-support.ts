// Test helpers for the audit writer: deterministic ids, temp folders and a logger that records calls.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixedClock } from '../clock.ts';
import { ConfigError } from '../config/config-error.ts';
import type { Logger } from '../log.ts';
import { encodeUlid, type Random } from '../random.ts';
import type { AuditEnvelope } from './audit-envelope.ts';
import { type AuditWriterOptions, createAuditWriter } from './create-audit-writer.ts';

export const TEST_SECRET = Buffer.alloc(32, 0x5a);
export const OTHER_SECRET = Buffer.alloc(32, 0x33);

/** ULIDs whose entropy is a counter, so ids are unique and repeatable. */
export function sequenceRandom(): Random {
  let counter = 0;
  return {
    ulid(nowMs) {
      counter++;
      const entropy = Buffer.alloc(10);
      entropy.writeUInt32BE(counter, 6);
      return encodeUlid(nowMs, entropy);
    },
    bytes: (length) => Buffer.alloc(length, counter & 0xff),
  };
}

export function makeTempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'ambit-audit-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export interface LoggedCall {
  level: 'error' | 'warn' | 'info';
  fields: Record<string, unknown>;
  message: string;
}

export function recordingLogger(): { logger: Logger; calls: LoggedCall[] } {
  const calls: LoggedCall[] = [];
  const at =
    (level: LoggedCall['level']) =>
    (fields: Record<string, unknown>, message: string): void => {
      calls.push({ level, fields, message });
    };
  const logger = { error: at('error'), warn: at('warn'), info: at('info') } as unknown as Logger;
  return { logger, calls };
}

export function sampleRecord(n: number): Record<string, unknown> {
  return {
    ts: new Date(Date.UTC(2025, 0, 1, 0, 0, n)).toISOString(),
    request_id: `req-${n}`,
    principal_id: 'key-1',
    method: 'GET',
    path: '/datasets/{dataset}/entities/{entity}/records/{id}',
    status_code: 200,
    scopes_used: ['read'],
    query_params: { 'district.in': { op: 'in' } },
    purpose: null,
    duration_ms: n * 1.5,
  };
}

/** Writer options for tests: a jsonl sink, the test secret, a fixed clock; anything else as given. */
export function writerOptions(overrides: Partial<AuditWriterOptions>): AuditWriterOptions {
  return {
    sink: 'jsonl',
    secret: TEST_SECRET,
    writePolicy: 'fail_closed',
    clock: fixedClock('2025-01-01T00:00:00.000Z'),
    random: sequenceRandom(),
    logger: recordingLogger().logger,
    ...overrides,
  };
}

/** The envelopes of a JSONL audit file, in order. */
export function readEnvelopes(path: string): AuditEnvelope[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as AuditEnvelope);
}

/** Matches the ConfigError an audit writer throws with this issue code. */
export function isConfigError(code: string) {
  return (error: unknown) =>
    error instanceof ConfigError && error.issues.some((issue) => issue.code === code);
}

/** A JSONL audit file in a temp folder holding records 1 and 2, as a closed writer left it, and its text. */
export async function fileOfTwoRecords(t: { after(fn: () => void): void }) {
  const dir = makeTempDir(t);
  const path = join(dir, 'audit.jsonl');
  const writer = createAuditWriter(writerOptions({ path }));
  writer.write(sampleRecord(1));
  writer.write(sampleRecord(2));
  await writer.close();
  return { dir, path, original: readFileSync(path, 'utf8') };
}
