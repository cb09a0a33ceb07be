// The relay's `server` block: listeners, their limits, and the keys the reference relay's configs carry.
import { z } from 'zod';
import { bindAddressSchema } from '../../platform/config/bind-address.ts';
import { corsSchema } from '../../platform/config/cors-schema.ts';
import { durationMs } from '../../platform/config/duration.ts';
import { envVarName } from '../../platform/config/env-var-name.ts';
import { maxConnectionsSchema, requestTimeoutSchema } from '../../platform/config/listener-limits-schema.ts';
import { trustProxySchema } from '../../platform/config/trust-proxy-schema.ts';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

const bindAddress = bindAddressSchema('127.0.0.1:4242');

export const server = z.strictObject({
  bind: bindAddress.describe(
    'Data-plane listen address, host:port (port 0 to 65535; IPv6 hosts in brackets). `--bind` overrides it.',
  ),
  admin_bind: bindAddress
    .optional()
    .describe(
      'Admin listener address, host:port like `bind` (reload, metrics, posture). Never mounted on `bind`; no admin listener when unset.',
    ),
  openapi_requires_auth: z.boolean().default(true).describe('When false, /openapi.json is public.'),
  max_source_file_bytes: z
    .number()
    .int()
    .positive()
    .max(1024 * GIB)
    .default(256 * MIB)
    .describe('Largest CSV or Parquet file loaded (at most 1 TiB).'),
  // An XLSX file is read whole into one buffer, which Node caps at 4 GiB; half that leaves room for its XML.
  xlsx_max_file_bytes: z
    .number()
    .int()
    .positive()
    .max(2 * GIB)
    .default(256 * MIB)
    .describe('Largest XLSX file loaded (at most 2 GiB: it is read whole into memory).'),
  request_timeout: requestTimeoutSchema(),
  // Node checks both deadlines once a second, so a value under 1s acts as up to 1s.
  http1_header_read_timeout: durationMs({ min: 1, max: 300_000 })
    .default(10_000)
    .describe(
      'A request whose headers are still incomplete this long after its first byte answers 504 `internal.timeout` and its connection closes (at most 5m; never past `request_timeout`).',
    ),
  request_body_timeout: durationMs({ min: 1, max: 3_600_000 })
    .default(10_000)
    .describe(
      'A request body still incomplete this long after the headers answers 504 `internal.timeout` and its connection closes (at most 1h; `request_timeout` still bounds the whole request).',
    ),
  max_connections: maxConnectionsSchema(
    ' With `--workers N` each worker holds up to this many (N times as many in all), and closes a connection handed to it at its limit even while another worker has room.',
  ),
  cache_dir: z
    .string()
    .max(4096)
    .optional()
    .describe(
      'Accepted for compatibility with existing configs, without effect: the relay writes no cache files.',
    ),
  cursor_secret_env: envVarName()
    .optional()
    .describe(
      'Environment variable holding the cursor signing secret (>= 32 bytes, not the audit secret itself); derived from the audit secret if unset, so every process of one deployment accepts cursors issued by the others.',
    ),
  cors: corsSchema(),
  trust_proxy: trustProxySchema().describe('X-Forwarded-For is honoured only from these addresses or CIDRs.'),
});
