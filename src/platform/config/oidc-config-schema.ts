// The `auth.oidc` config block both services accept: issuer, keys, audiences, algorithms and scope mapping.
import { z } from 'zod';
import { durationMs } from './duration.ts';

export const oidcConfigSchema = z.strictObject({
  issuer: z.url(),
  audiences: z.array(z.string().min(1)).min(1),
  jwks_url: z.url().optional(),
  discovery_url: z.url().optional(),
  allowed_algorithms: z
    .array(z.enum(['RS256', 'ES256', 'EdDSA']))
    .min(1)
    .default(['RS256', 'ES256', 'EdDSA']),
  jwks_cache_ttl: durationMs({ min: 1000, max: 86_400_000 }).default(600_000),
  leeway: durationMs({ min: 0, max: 300_000 }).default(30_000),
  scope_claim: z.string().trim().min(1).default('scope'),
  scope_map: z.record(z.string(), z.union([z.string(), z.array(z.string())])).default({}),
  allowed_clients: z.array(z.string().min(1)).default([]),
  allowed_token_types: z.array(z.string().min(1)).min(1).default(['JWT', 'at+jwt']),
  allow_dev_insecure_fetch_urls: z.boolean().default(false),
});
