// registerAggregateRoutes: discovery and execution of declared aggregates.
import type { FastifyInstance } from 'fastify';
import type { RelayRuntime } from '../relay-runtime.ts';
import { registerAggregateDiscoveryRoutes } from './discovery-routes.ts';
import { registerAggregateQueryRoutes } from './query-routes.ts';

export function registerAggregateRoutes(app: FastifyInstance, runtime: RelayRuntime): void {
  registerAggregateDiscoveryRoutes(app, runtime);
  registerAggregateQueryRoutes(app, runtime);
}
