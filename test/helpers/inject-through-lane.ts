// Injects a request the way a socket delivers it: through the app's node:http listener (`app.dispatch`), so routes
// on the fast lane are exercised exactly as in production, and everything else reaches Fastify as usual.
import type { FastifyInstance } from 'fastify';
import { type InjectOptions, inject, type Response } from 'light-my-request';

export async function injectThroughLane(app: FastifyInstance, options: InjectOptions): Promise<Response> {
  await app.ready();
  return inject(app.dispatch, options);
}
