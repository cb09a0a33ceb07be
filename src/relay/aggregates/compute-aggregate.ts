// Plan, execute and disclose: the whole computation of one aggregate query over a data generation.
import type { Generation } from '../store/generation.ts';
import type { CatalogAggregate } from './aggregate-model.ts';
import { applyDisclosure, type DisclosedResult } from './apply-disclosure.ts';
import { executeAggregate } from './execute-aggregate.ts';
import type { AggregateQuery } from './parse-aggregate-request.ts';
import { planAggregate } from './plan-aggregate.ts';

export function computeAggregate(
  generation: Generation,
  aggregate: CatalogAggregate,
  query: AggregateQuery,
): DisclosedResult {
  const plan = planAggregate(generation, aggregate, query);
  return applyDisclosure(aggregate, query, plan, executeAggregate(plan));
}
