// Ids that become file names of a static publication must name distinct files on any host: the publisher refuses
// a manifest whose files would collide, so the manifest check (validate, the relay's startup) refuses it too.
// Entity and field names are lower case without dots (see manifest-schema.ts), so they cannot collide this way.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { manifestIssue as issue } from './manifest-issue.ts';
import type { Manifest } from './manifest-schema.ts';

interface Named {
  readonly id: string;
  readonly path: string;
}

export function checkPublishablePaths(manifest: Manifest): ConfigIssue[] {
  const datasets = manifest.datasets.map((dataset, d) => ({ id: dataset.id, path: `datasets.${d}.id` }));
  const offerings = manifest.datasets.flatMap((dataset, d) =>
    dataset.evidence_offerings.map((offering, o) => ({
      id: offering.id,
      path: `datasets.${d}.evidence_offerings.${o}.id`,
    })),
  );
  // Both lists are published under metadata/profiles/<id>.json; the same id in both is one file.
  const profiles = [
    ...manifest.profiles.map((profile, p) => ({ id: profile.id, path: `profiles.${p}.id` })),
    ...manifest.catalog.application_profiles.map((profile, p) => ({
      id: profile.id,
      path: `catalog.application_profiles.${p}.id`,
    })),
  ];
  const forms = manifest.forms.map((form, f) => ({ id: form.id, path: `forms.${f}.id` }));
  return [
    ...caseCollisions(datasets, 'dataset'),
    ...descriptorFolders(datasets),
    ...caseCollisions(offerings, 'evidence offering'),
    ...caseCollisions(profiles, 'profile'),
    ...caseCollisions(forms, 'form'),
  ];
}

/**
 * Ids equal but for case (`people`, `People`): one file on a case-insensitive file system (macOS, Windows).
 * Ids equal exactly are duplicates, reported by the unique-id rule (or, for profiles, one profile).
 */
function caseCollisions(items: readonly Named[], what: string): ConfigIssue[] {
  const first = new Map<string, Named>();
  const issues: ConfigIssue[] = [];
  for (const item of items) {
    const folded = item.id.toLowerCase();
    const seen = first.get(folded);
    if (seen === undefined) first.set(folded, item);
    else if (seen.id !== item.id)
      issues.push(
        issue(
          item.path,
          `${what} id \`${item.id}\` differs from \`${seen.id}\` only in case: a published file name on a case-insensitive file system; rename one`,
        ),
      );
  }
  return issues;
}

/** Dataset `people` is published as `datasets/people.json`, the folder dataset `people.json` needs. */
function descriptorFolders(datasets: readonly Named[]): ConfigIssue[] {
  const byFolded = new Map(datasets.map((dataset) => [dataset.id.toLowerCase(), dataset]));
  return datasets.flatMap((dataset) => {
    const folded = dataset.id.toLowerCase();
    if (!folded.endsWith('.json')) return [];
    const file = byFolded.get(folded.slice(0, -'.json'.length));
    if (file === undefined) return [];
    return [
      issue(
        dataset.path,
        `dataset id \`${dataset.id}\` is also the published file of dataset \`${file.id}\` (datasets/${file.id}.json), which cannot be a folder too; rename one`,
      ),
    ];
  });
}
