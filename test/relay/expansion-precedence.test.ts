// An expansion's target is checked as the relationship route checks it: its read scope (403), then the purpose it
// requires (400 auth.purpose_required), before any other parameter and before the required filters
// (docs/decisions/0003-scope-before-existence.md), and the caller never sees a target row it may not read.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertProblem } from './assert-problem.ts';
import { type FamilyRelay, KIDS, PARENTS, startFamilyRelay } from './family-fixture.ts';

/** Kids need a purpose; parents need an `id` equality on collections (a read by id satisfies it). */
const gate = (text: string) =>
  text
    .replace('default_limit: 20', 'default_limit: 20\n          require_purpose_header: true')
    .replace('default_limit: 10', 'default_limit: 10\n          required_filters: [id]');

const PURPOSE = { 'data-purpose': 'https://example.test/purpose' };

describe('expansion targets are checked before the query', () => {
  let family: FamilyRelay;
  before(async () => {
    family = await startFamilyRelay({ edit: gate });
  });
  after(() => family.close());

  const malformed = [
    'limit=0',
    'limit=x',
    'fields=nope',
    'id.foo=p1',
    'nope=1',
    'cursor=x',
    '', // only the required filter is missing
  ];

  it('a caller without the target’s read scope gets 403 whatever else is wrong', async () => {
    for (const query of malformed) {
      for (const path of [`${PARENTS}?expand=kids&${query}`, `${PARENTS}/p1?expand=kids&${query}`]) {
        assertProblem(
          await family.get(path, 'parents_only', PURPOSE),
          403,
          'auth.scope_denied',
          'expanding `kids` requires scope fam:evidence_verification',
        );
      }
      // As the relationship route answers (it checks both ends before its parameters).
      assertProblem(
        await family.get(`${PARENTS}/p1/relationships/kids?${query}`, 'parents_only', PURPOSE),
        403,
        'auth.scope_denied',
      );
    }
    assertProblem(
      await family.get(`${KIDS}?parent_id=p1&expand=parent&limit=0`, 'kids_only', PURPOSE),
      403,
      'auth.scope_denied',
    );
  });

  it('a caller without the purpose the target requires gets auth.purpose_required whatever else is wrong', async () => {
    for (const query of malformed) {
      assertProblem(
        await family.get(`${PARENTS}?expand=kids&${query}`, 'reader'),
        400,
        'auth.purpose_required',
        'entity kids requires the Data-Purpose header',
      );
      // As the relationship route answers: its target's purpose is required before its parameters.
      assertProblem(
        await family.get(`${PARENTS}/p1/relationships/kids?${query}`, 'reader'),
        400,
        'auth.purpose_required',
        'entity kids requires the Data-Purpose header',
      );
    }
    const related = await family.get(`${PARENTS}/p1/relationships/kids`, 'reader', PURPOSE);
    assert.equal(related.statusCode, 200, related.body);
    assertProblem(
      await family.get(`${PARENTS}/p1?expand=kids&fields=nope`, 'reader'),
      400,
      'auth.purpose_required',
    );
  });

  it('parameters are then checked as without the expansion', async () => {
    assertProblem(
      await family.get(`${PARENTS}?expand=kids&limit=0`, 'reader', PURPOSE),
      400,
      'filter.limit_out_of_range',
    );
    assertProblem(
      await family.get(`${PARENTS}?expand=kids`, 'reader', PURPOSE),
      400,
      'entity.filter_required',
    );
    assertProblem(
      await family.get(`${PARENTS}/p1?expand=kids&fields=nope`, 'reader', PURPOSE),
      400,
      'filter.unknown_field',
    );
    const ok = await family.get(`${PARENTS}?id=p1&expand=kids&fields=id`, 'reader', PURPOSE);
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(
      ok.json().data.map((row: { id: string; kids: unknown[] }) => [row.id, row.kids.length]),
      [['p1', 10]],
    );
  });
});
