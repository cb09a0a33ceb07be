// A target's `profile` is echoed in `target_ref` wherever a result names its target (results, renders of stored
// evaluations, batch items) and described in the runtime OpenAPI document; it is not identity, so the handle stays.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { nationalIdTable } from '../helpers/fake-relay-table.ts';
import { type FakeUpstream, startFakeUpstream } from '../helpers/fake-upstream.ts';
import { CCCEV, startTestVerifier, type TestVerifier } from '../helpers/verifier-harness.ts';

const BATCH = '/v1/batch-evaluations';
const TARGET = { type: 'person', identifiers: [{ scheme: 'national_id', value: 'A1' }] };
const PROFILE = 'urn:example:profile:adult';

type TargetRef = { type?: string; handle: string; identifier_schemes?: string[]; profile?: string };

describe('target profile in target_ref', () => {
  let upstream: FakeUpstream;
  let verifier: TestVerifier;

  before(async () => {
    upstream = await startFakeUpstream(nationalIdTable([{ national_id: 'A1', deceased: false }]));
    verifier = await startTestVerifier({ relays: { civil: upstream.url, social: upstream.url } });
  });

  after(async () => {
    await verifier?.close();
    await upstream?.close();
  });

  const evaluate = async (target: Record<string, unknown>) => {
    const response = await verifier.evaluate({ target, claims: ['person_alive'] });
    assert.equal(response.statusCode, 200, response.body);
    return JSON.parse(response.body).results[0] as { evaluation_id: string; target_ref: TargetRef };
  };

  it('echoes a profile sent, leaves it out when none is, and keeps the handle either way', async () => {
    const plain = await evaluate(TARGET);
    assert.equal(Object.hasOwn(plain.target_ref, 'profile'), false);
    const profiled = await evaluate({ ...TARGET, profile: PROFILE });
    assert.deepEqual(profiled.target_ref, { ...plain.target_ref, profile: PROFILE });
    const other = await evaluate({ ...TARGET, profile: 'urn:example:profile:other' });
    assert.equal(other.target_ref.handle, plain.target_ref.handle);
  });

  it('keeps the profile in the stored evaluation: a render answers it as the evaluation did', async () => {
    const made = await verifier.evaluate({
      target: { ...TARGET, profile: PROFILE },
      claims: ['person_alive'],
    });
    assert.equal(made.statusCode, 200, made.body);
    const id = JSON.parse(made.body).results[0].evaluation_id;
    const rendered = await verifier.post(`/v1/evaluations/${id}/render`, {});
    assert.equal(rendered.statusCode, 200, rendered.body);
    assert.equal(rendered.body, made.body);
    assert.equal(JSON.parse(rendered.body).results[0].target_ref.profile, PROFILE);
  });

  it('evaluates and renders CCCEV for a target sent with a profile', async () => {
    const headers = { accept: CCCEV };
    const body = { target: { ...TARGET, profile: PROFILE }, claims: ['person_alive'] };
    const made = await verifier.evaluate(body, { headers });
    assert.equal(made.statusCode, 200, made.body);
    const id = JSON.parse(made.body)['@graph'][0]['dcterms:identifier'];
    const rendered = await verifier.post(`/v1/evaluations/${id}/render`, {}, { headers });
    assert.equal(rendered.statusCode, 200, rendered.body);
    assert.equal(rendered.body, made.body);
  });

  it('echoes each batch item its own profile, with the handle a single evaluation gives', async () => {
    const single = await evaluate(TARGET);
    const response = await verifier.post(BATCH, {
      items: [
        { target: { ...TARGET, profile: PROFILE } },
        { target: TARGET },
        { target: { type: 'person' } },
      ],
      claims: ['person_alive'],
    });
    assert.equal(response.statusCode, 200, response.body);
    const [profiled, plain, failed] = JSON.parse(response.body).items as {
      status: string;
      evaluation_id?: string;
      target_ref: TargetRef | null;
    }[];
    assert.deepEqual(profiled?.target_ref, { ...single.target_ref, profile: PROFILE });
    assert.deepEqual(plain?.target_ref, single.target_ref);
    assert.equal(failed?.status, 'failed');
    assert.equal(failed?.target_ref, null);
    // The item's stored evaluation renders with the profile it was evaluated with.
    const rendered = await verifier.post(`/v1/evaluations/${profiled?.evaluation_id}/render`, {});
    assert.equal(rendered.statusCode, 200, rendered.body);
    assert.equal(JSON.parse(rendered.body).results[0].target_ref.profile, PROFILE);
  });

  it('describes target_ref.profile in the runtime OpenAPI document', async () => {
    const response = await verifier.get('/openapi.json', { as: 'full' });
    assert.equal(response.statusCode, 200, response.body);
    const targetRef = JSON.parse(response.body).components.schemas.TargetRef;
    assert.equal(targetRef.properties.profile?.type, 'string');
    assert.equal(targetRef.required.includes('profile'), false);
  });
});
