// Resolving path parameters inside a caller's view: whatever is outside it answers exactly like what does not exist.
import { platformProblem } from '../../../platform/problem/platform-problems.ts';
import { relayProblem } from '../../problems.ts';
import type {
  DatasetMeta,
  EntityMeta,
  EvidenceOffering,
  FormMeta,
  MetadataModel,
} from '../model/metadata-model.ts';
import { allOfferings } from '../renderers/render-evidence-offerings.ts';

/** A dataset outside the view answers 403 whether it exists or not (docs/decisions/0003). */
export function datasetIn(view: MetadataModel, datasetId: string): DatasetMeta {
  const dataset = view.datasets.find((candidate) => candidate.id === datasetId);
  if (!dataset) throw platformProblem('auth.scope_denied', `required scope: ${datasetId}:metadata`);
  return dataset;
}

export function entityIn(view: MetadataModel, datasetId: string, name: string): EntityMeta {
  const entity = datasetIn(view, datasetId).entities.find((candidate) => candidate.name === name);
  if (!entity) throw relayProblem('schema.unknown_resource', `dataset ${datasetId} has no entity ${name}`);
  return entity;
}

export function offeringIn(view: MetadataModel, id: string): EvidenceOffering {
  const offering = allOfferings(view).find((candidate) => candidate.id === id);
  if (!offering) throw relayProblem('offering.not_found', 'no evidence offering with that id');
  return offering;
}

export function formIn(view: MetadataModel, id: string): FormMeta {
  const form = view.forms.find((candidate) => candidate.id === id);
  if (!form) throw relayProblem('schema.unknown_resource', 'no form with that id');
  return form;
}

export function recordIn(view: MetadataModel, id: string): DatasetMeta {
  const dataset = view.datasets.find((candidate) => candidate.id === id);
  if (!dataset) throw relayProblem('schema.unknown_resource', 'no catalog record with that id');
  return dataset;
}
