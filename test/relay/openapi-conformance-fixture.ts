// The demo relay for a suite of OpenAPI conformance tests, and each persona's own /openapi.json as a checker
// (fetched once per persona).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { type ConformanceChecker, conformanceChecker } from '../helpers/openapi-conformance.ts';
import { type Persona, startDemoRelay, type TestRelay } from '../helpers/relay-harness.ts';

export interface ConformanceRelay {
  readonly relay: TestRelay;
  /** The checker of `persona`'s own document. */
  documentOf(persona: Persona): Promise<ConformanceChecker>;
}

export function useConformanceRelay(): ConformanceRelay {
  let relay: TestRelay;
  const checkers = new Map<Persona, ConformanceChecker>();
  before(async () => {
    relay = await startDemoRelay();
  });
  after(() => relay?.close());
  return {
    get relay() {
      return relay;
    },
    async documentOf(persona) {
      let checker = checkers.get(persona);
      if (!checker) {
        const response = await relay.get('/openapi.json', { as: persona });
        assert.equal(response.statusCode, 200, response.body);
        checker = conformanceChecker(response.json());
        checkers.set(persona, checker);
      }
      return checker;
    },
  };
}
