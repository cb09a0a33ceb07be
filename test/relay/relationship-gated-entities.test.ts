// Relationships into gated entities: required filters not bypassed by reads by id, relationships or expansions,
// a has_one satisfying a required filter, and relationships to entities the caller cannot see.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Persona } from '../helpers/relay-harness.ts';
import { startDemoRelay } from '../helpers/relay-harness.ts';
import { assertProblem } from './assert-problem.ts';
import { type Row, readDemoData } from './read-demo-data.ts';
import { MEMBER_SCOPE, restrictMembers } from './relationships-fixture.ts';

describe('required filters are not bypassed by other reads of the entity', () => {
  const PERSONS = '/v1/datasets/civil_registry/entities/persons/records';
  const PURPOSE_HEADER = { 'data-purpose': 'https://demo.example.gov/purpose/benefit-eligibility' };

  it('a read by id needs the primary key among the required filters', async () => {
    const byNationalIdOnly = await startDemoRelay({
      edit: (text) =>
        text.replace('required_filters: [person_id, national_id]', 'required_filters: [national_id]'),
    });
    const demo = await readDemoData();
    const person = demo.persons[0] as Row;
    try {
      assertProblem(
        await byNationalIdOnly.get(`${PERSONS}/${person.person_id}`, {
          as: 'caseworker',
          headers: PURPOSE_HEADER,
        }),
        400,
        'entity.filter_required',
      );
      const found = await byNationalIdOnly.get(`${PERSONS}?national_id=${person.national_id}`, {
        as: 'caseworker',
        headers: PURPOSE_HEADER,
      });
      assert.equal(found.statusCode, 200, found.body);
    } finally {
      await byNationalIdOnly.close();
    }
    // The demo lists person_id: its records are read by id.
    const demoRelay = await startDemoRelay();
    try {
      const record = await demoRelay.get(`${PERSONS}/${person.person_id}`, {
        as: 'caseworker',
        headers: PURPOSE_HEADER,
      });
      assert.equal(record.statusCode, 200, record.body);
    } finally {
      await demoRelay.close();
    }
  });

  it('a relationship (and so its expansion) into an entity must read it by one of its required filters', async () => {
    const gateMembers = (text: string) => {
      const start = text.indexOf('      - name: members\n');
      const at = text.indexOf('          allowed_filters:', start);
      return `${text.slice(0, at)}          required_filters: [member_id]\n${text.slice(at)}`;
    };
    await assert.rejects(startDemoRelay({ edit: gateMembers }), (error: unknown) => {
      assert.match(
        String((error as Error).message),
        /relationships\.0\.target.*`members` requires an equality filter on one of member_id.*household_id`: drop the relationship, or add that field to its required_filters \(then any caller with its rows scope may read a record by that field alone/,
      );
      return true;
    });
  });
});

describe('required filters on either end of a relationship', () => {
  const HOUSEHOLDS = '/v1/datasets/social_protection/entities/households/records';
  const MEMBERS = '/v1/datasets/social_protection/entities/members/records';

  /** Members required to be filtered by household_id, and a has_one from households into them. */
  const gateMembersByHousehold = (text: string) => {
    const start = text.indexOf('      - name: members\n');
    const at = text.indexOf('          allowed_filters:', start);
    const gated = `${text.slice(0, at)}          required_filters: [household_id]\n${text.slice(at)}`;
    const payments =
      '          - { name: payments, kind: has_many, target: payments, foreign_key: household_id }\n';
    assert.ok(gated.includes(payments));
    return gated.replace(
      payments,
      `${payments}          - { name: first_member, kind: has_one, target: members, foreign_key: household_id }\n`,
    );
  };

  it('a has_one reads its target by its foreign key, so one required there is satisfied', async () => {
    const relay = await startDemoRelay({ edit: gateMembersByHousehold });
    const demo = await readDemoData();
    const member = demo.members[0] as Row;
    try {
      const one = await relay.get(`${HOUSEHOLDS}/${member.household_id}/relationships/first_member`, {
        as: 'caseworker',
      });
      assert.equal(one.statusCode, 200, one.body);
      assert.equal(one.json().household_id, member.household_id);
      // The source of a relationship read is a record read by id: refused where the record route refuses it.
      assertProblem(
        await relay.get(`${MEMBERS}/${member.member_id}/relationships/household`, { as: 'caseworker' }),
        400,
        'entity.filter_required',
      );
      assertProblem(
        await relay.get(`${MEMBERS}/${member.member_id}`, { as: 'caseworker' }),
        400,
        'entity.filter_required',
      );
    } finally {
      await relay.close();
    }
  });
});

describe('relationships to entities the caller cannot see', () => {
  /** Members' metadata (and rows) under a scope only the caseworker is granted; the analyst sees the dataset. */
  const hideMembers = (text: string) => {
    const start = text.indexOf('      - name: members\n');
    const end = text.indexOf('      - name: payments\n', start);
    const members = text
      .slice(start, end)
      .replace('metadata_scope: social_protection:metadata', `metadata_scope: ${MEMBER_SCOPE}`);
    return restrictMembers(text.slice(0, start) + members + text.slice(end));
  };

  it('are left out of the schema, the metadata and the OpenAPI document; the caller with the scope sees them', async () => {
    const relay = await startDemoRelay({ edit: hideMembers });
    try {
      const names = (body: { relationships: { name: string }[] }) =>
        body.relationships.map((rel) => rel.name);
      const schema = (as: Persona) =>
        relay.get('/v1/datasets/social_protection/entities/households/schema', { as });
      assert.deepEqual(names((await schema('analyst')).json()), ['payments']);
      assert.deepEqual(names((await schema('caseworker')).json()), ['members', 'payments']);

      const metadata = (as: Persona) =>
        relay.get('/metadata/datasets/social_protection/entities/households', { as });
      const analystMeta = await metadata('analyst');
      assert.equal(analystMeta.statusCode, 200, analystMeta.body);
      assert.doesNotMatch(analystMeta.body, /"members"/);
      assert.match((await metadata('caseworker')).body, /"members"/);

      const openapi = (await relay.get('/openapi.json', { as: 'analyst' })).body;
      assert.doesNotMatch(openapi, /relationships\/members|members, payments/);
      assert.match(openapi, /households\/records\/\{id\}\/relationships\/payments/);
      assert.match(
        (await relay.get('/openapi.json', { as: 'caseworker' })).body,
        /households\/records\/\{id\}\/relationships\/members/,
      );
    } finally {
      await relay.close();
    }
  });
});
