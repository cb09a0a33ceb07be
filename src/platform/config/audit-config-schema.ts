// The `audit` config block both services accept: sink, file, HMAC secret, health records and write policy.
import { z } from 'zod';
import { enumWithHints } from './enum-with-hints.ts';
import { envVarName } from './env-var-name.ts';

export const auditConfigSchema = z.strictObject({
  sink: enumWithHints(['stdout', 'file', 'jsonl'], {
    syslog:
      'there is no syslog sink: use `stdout` (for the service manager or container runtime to collect) or `file`/`jsonl` (a file the service writes)',
  }),
  path: z
    .string()
    .max(4096)
    .optional()
    .describe('Audit file for the `file` and `jsonl` sinks, relative to the config file.'),
  hash_secret_env: envVarName().describe('Environment variable holding the audit HMAC secret (>= 32 bytes).'),
  include_health: z.boolean().default(false),
  write_policy: z.enum(['fail_closed', 'availability_first']).default('fail_closed'),
  rotate: z
    .strictObject({
      // About 1 KB at least (a record or two per file, for trying rotation out): below it every record would
      // rotate the file, renaming every kept file each time.
      max_size_mb: z
        .number()
        .min(0.001)
        .max(1_048_576)
        .default(100)
        .describe('Size in MB (MiB) past which the file rotates (0.001, about 1 KB, to 1048576, 1 TiB).'),
      // Each rotation renames every kept file in turn, synchronously: an unbounded count would stall the process.
      max_files: z.number().int().positive().max(1000).default(10),
    })
    .optional(),
});

export type AuditBlock = z.infer<typeof auditConfigSchema>;
