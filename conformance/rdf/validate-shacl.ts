// SHACL validation with rdf-validate-shacl over @zazuko/env, and a report that reads well in a failed assertion.
import rdf from '@zazuko/env';
import SHACLValidator from 'rdf-validate-shacl';
import type { Dataset } from './rdf-dataset.ts';

export type Severity = 'Violation' | 'Warning' | 'Info';

export interface ShaclResult {
  readonly severity: Severity;
  readonly focusNode: string;
  readonly path: string;
  /** Local name of the constraint component, e.g. `MinCountConstraintComponent`. */
  readonly constraint: string;
  readonly message: string;
}

export interface ShaclReport {
  readonly conforms: boolean;
  readonly results: readonly ShaclResult[];
}

const local = (iri: string | undefined) => (iri ?? '').replace(/^.*[#/]/, '');

export async function validateShacl(data: Dataset, shapes: Dataset): Promise<ShaclReport> {
  const validator = new SHACLValidator(shapes, { factory: rdf });
  const report = await validator.validate(data);
  return {
    conforms: report.conforms,
    results: report.results.map((result) => ({
      severity: local(result.severity?.value) as Severity,
      focusNode: result.focusNode?.value ?? '',
      path: result.path?.value ?? '',
      constraint: local(result.sourceConstraintComponent?.value),
      message: result.message.map((text) => text.value).join('; '),
    })),
  };
}

export function violations(report: ShaclReport): ShaclResult[] {
  return report.results.filter((result) => result.severity === 'Violation');
}

/** One line per result, for assertion messages. */
export function describeResults(results: readonly ShaclResult[]): string {
  return results
    .map((r) => `${r.severity} ${r.constraint} on <${r.focusNode}> ${r.path}: ${r.message}`)
    .join('\n');
}
