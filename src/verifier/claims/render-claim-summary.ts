// The public description of a claim (verifier contract §2.4): no connection, dataset or source field names.
import type { CatalogClaim } from './build-claim-catalog.ts';

/**
 * Whether a caller can use the operation on the claim: enabled, and no rule of the claim or its sub-claims is a
 * `plugin` (which has no implementation: every such evaluation answers 501, so discovery does not offer it).
 */
export function offersOperation(claim: CatalogClaim, operation: 'evaluate' | 'batch_evaluate'): boolean {
  return claim.config.operations[operation].enabled && !claim.needsPlugin;
}

/**
 * `inlineBatchLimit`: the deployment's `evidence.inline_batch_limit`, which caps every batch whatever the claim's own
 * `max_subjects`; the summary states the size the batch route accepts, so a client sizing batches by it never meets
 * 413 `batch.too_large`.
 */
export function renderClaimSummary(claim: CatalogClaim, inlineBatchLimit: number): Record<string, unknown> {
  const config = claim.config;
  const batch = offersOperation(claim, 'batch_evaluate');
  return {
    id: config.id,
    title: config.title,
    ...(config.description === undefined ? {} : { description: config.description }),
    version: config.version,
    subject_type: config.subject_type,
    value: config.value,
    // Booleans, as in the contract's summary and the capability envelope: an object would read as "offered".
    operations: {
      evaluate: offersOperation(claim, 'evaluate'),
      batch_evaluate: batch,
    },
    ...(batch
      ? { batch_max_subjects: Math.min(config.operations.batch_evaluate.max_subjects, inlineBatchLimit) }
      : {}),
    formats: config.formats,
    disclosure: config.disclosure,
    depends_on: config.depends_on,
    // A sub-claim's purpose limits its parent too.
    ...(claim.purpose === undefined ? {} : { purpose: claim.purpose }),
    // With the type a claim declares for it (`inputs`), which a request must respect.
    target_inputs: claim.targetInputs.map((path) => {
      const declared = claim.attributeTypes.find((input) => input.path === path);
      return { path, ...inputKind(path), ...(declared ? { type: declared.type } : {}) };
    }),
    cccev: config.cccev ?? null,
    // The contract's summary always holds `oots`, null without an OOTS block (which no claim here has).
    oots: null,
    // Lifted from `cccev`, each when configured, as the verifier contract's summary has them.
    ...(config.cccev?.evidence_type === undefined ? {} : { evidence_type: config.cccev.evidence_type }),
    ...(config.cccev?.evidence_type_iri === undefined
      ? {}
      : { evidence_type_iri: config.cccev.evidence_type_iri }),
  };
}

function inputKind(path: string): { kind: 'id' | 'identifier' | 'attribute'; name: string } {
  if (path === 'target.id') return { kind: 'id', name: 'id' };
  if (path.startsWith('target.identifiers.'))
    return { kind: 'identifier', name: path.slice('target.identifiers.'.length) };
  return { kind: 'attribute', name: path.slice('target.attributes.'.length) };
}
