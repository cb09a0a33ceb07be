// `ambit config check` on a relay config that loads but deserves a warning: an aggregate listing the values of a
// field its entity guards with `api.required_filters`.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runCli } from '../helpers/run-cli.ts';
import { READER_ENV, useScratchDir, VALID } from './cli-fixture.ts';

const scratch = useScratchDir();

/** minimal.yaml with person_id a required filter and an aggregate grouping by it under `control`. */
function guardedConfig(name: string, control: string): string {
  const path = join(scratch.dir, name);
  writeFileSync(
    path,
    `${readFileSync(join(VALID, 'minimal.yaml'), 'utf8')}        api: { required_filters: [person_id], allowed_filters: [{ field: person_id, ops: [eq] }] }
    aggregates:
      - id: by_person
        source_entity: persons
        dimensions: [{ id: person, field: person_id }, { id: area, field: district }]
        indicators: [{ id: people, function: count }]
        disclosure_control: ${control}
`,
  );
  return path;
}

describe('ambit config check: relay config warnings', () => {
  it('prints the ok line, then a warning naming the aggregate that lists a required-filter field, and exits 0', async () => {
    const config = guardedConfig('leaky.yaml', '{ min_cell_size: 1 }');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.err, []);
    assert.equal(result.out.length, 2, result.out.join('\n'));
    assert.equal(result.out[0], `ok: ${config} (1 dataset, 1 entity, auth api_key)`);
    assert.match(
      result.out[1] ?? '',
      /^ {2}warning: dataset people, aggregate by_person: dimension person groups by person_id, and entity persons requires an equality filter on person_id \(api\.required_filters\); as min_cell_size is 1, .*or drop the dimension$/,
    );
  });

  it('warns on suppression mask too, whatever the minimum cell size', async () => {
    const config = guardedConfig('masked.yaml', '{ min_cell_size: 10, suppression: mask }');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.equal(result.out.length, 2, result.out.join('\n'));
    assert.match(result.out[1] ?? '', /warning: .*suppression mask keeps the keys of small groups/);
  });

  it('prints no warning when small groups are omitted at a minimum cell size of 2', async () => {
    const config = guardedConfig('guarded.yaml', '{ min_cell_size: 2, suppression: omit }');
    const result = await runCli(['config', 'check', '--config', config], READER_ENV);
    assert.equal(result.code, 0, result.err.join('\n'));
    assert.deepEqual(result.out, [`ok: ${config} (1 dataset, 1 entity, auth api_key)`]);
  });
});
