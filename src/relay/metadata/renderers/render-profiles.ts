// Application profiles (standards the catalog claims, e.g. dcat-ap 3.0.1) and deployment profiles.
import { textOrNull } from '../model/localized-text.ts';
import type { DeploymentProfile, MetadataModel } from '../model/metadata-model.ts';

export function renderProfileList(model: MetadataModel) {
  return {
    application_profiles: model.applicationProfiles.map(({ id, version }) => ({ id, version })),
    profiles: model.profiles.map(renderDeploymentProfile),
  };
}

/** One profile by id (deployment profiles first, then application profiles); undefined when unknown. */
export function renderProfile(model: MetadataModel, id: string) {
  const profile = model.profiles.find((candidate) => candidate.id === id);
  if (profile) return { kind: 'profile', ...renderDeploymentProfile(profile) };
  const applicationProfile = model.applicationProfiles.find((candidate) => candidate.id === id);
  if (applicationProfile) {
    return { kind: 'application_profile', id: applicationProfile.id, version: applicationProfile.version };
  }
  return undefined;
}

function renderDeploymentProfile(profile: DeploymentProfile) {
  return {
    id: profile.id,
    version: profile.version,
    title: textOrNull(profile.title),
    description: textOrNull(profile.description),
    conforms_to: profile.conformsTo ?? null,
  };
}
