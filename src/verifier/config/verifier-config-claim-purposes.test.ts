// A claim is evaluated only for the purpose it and each of its sub-claims is limited to: purposes that differ
// among them refuse every request, so such a config does not load.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkPurposeText } from '../evaluation/plan-evaluation.ts';
import { loadVerifierConfigText } from './load-verifier-config.ts';
import { BASE, ENV, issuesOf } from './verifier-config-test-support.ts';

const AUDIT = 'https://example.gov/purpose/audit';
const BENEFIT = 'https://example.gov/purpose/benefit';

const claim = (id: string, dependsOn: string[], purpose?: string) => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person
      value: { type: boolean }
${purpose === undefined ? '' : `      purpose: ${purpose}\n`}      depends_on: [${dependsOn.join(', ')}]
      rule: { type: cel, expression: "true" }`;

const purposeIssues = (text: string) =>
  issuesOf(text)
    .filter((issue) => issue.message.includes('purpose'))
    .map(({ path, message }) => ({ path, message }));

describe('verifier config claim purposes', () => {
  it('refuses a claim whose own purpose and a sub-claim’s differ, or two sub-claims’ (each conflict once)', () => {
    const text = `${BASE}${claim('audited', [], AUDIT)}${claim('benefit', [], BENEFIT)}${claim('own', ['audited'], BENEFIT)}${claim('both', ['audited', 'benefit'])}${claim('above', ['both'])}`;
    assert.deepEqual(purposeIssues(text), [
      {
        path: 'evidence.claims.3.purpose',
        message: `is ${BENEFIT}, but sub-claim \`audited\` is evaluated for ${AUDIT} only: no request could evaluate the claim`,
      },
      {
        path: 'evidence.claims.4.depends_on',
        message: `sub-claims \`audited\` and \`benefit\` are evaluated for ${AUDIT} and ${BENEFIT} only: no request could evaluate the claim`,
      },
    ]);
  });

  it('loads sub-claims limited to the parent’s purpose, or a parent taking its purpose from them', () => {
    const text = `${BASE}${claim('audited', [], AUDIT)}${claim('again', ['audited'], AUDIT)}${claim('inherits', ['audited', 'again', 'alive'])}`;
    assert.doesNotThrow(() => loadVerifierConfigText(text, ENV, '/tmp'));
    assert.equal(
      issuesOf(`${text}${claim('x', ['inherits'], BENEFIT)}`).filter((i) => i.message.includes('purpose'))
        .length,
      1,
    );
  });

  it('refuses a claim limited to a purpose outside allowed_purposes, once, where it is set', () => {
    const allowing = (purposes: string[]) =>
      BASE.replace(
        '  service_id: test.verifier\n',
        `  service_id: test.verifier\n  allowed_purposes: [${purposes.join(', ')}]\n`,
      );
    const claims = `${claim('audited', [], AUDIT)}${claim('above', ['audited'])}${claim('top', ['above'])}`;
    assert.deepEqual(purposeIssues(`${allowing([BENEFIT])}${claims}`), [
      {
        path: 'evidence.claims.1.purpose',
        message: `is ${AUDIT}, which is not in evidence.allowed_purposes: no request could evaluate the claim, nor a claim depending on it`,
      },
    ]);
    // Allowed, or no allowed_purposes at all (any purpose accepted): it loads.
    assert.doesNotThrow(() => loadVerifierConfigText(`${allowing([BENEFIT, AUDIT])}${claims}`, ENV, '/tmp'));
    assert.doesNotThrow(() => loadVerifierConfigText(`${BASE}${claims}`, ENV, '/tmp'));
  });
});

describe('verifier config purpose text', () => {
  // What a request may state (a header value as it is): any other purpose could never be asked for.
  const unaskable = [
    '"Prüfung der Leistung"',
    '" leading"',
    '"trailing "',
    '"tab\\there"',
    `"${'p'.repeat(513)}"`,
  ];

  it('refuses a claim purpose no request could state, as a request purpose is checked', () => {
    for (const purpose of unaskable) {
      assert.throws(() => checkPurposeText(JSON.parse(purpose), 'x'), /visible ASCII/, purpose);
      const issues = issuesOf(`${BASE}${claim('odd', [], purpose)}`).filter(
        (issue) => issue.path === 'evidence.claims.1.purpose',
      );
      assert.equal(issues.length, 1, purpose);
      assert.match(issues[0]?.message ?? '', /visible ASCII/, purpose);
      assert.ok(!issues[0]?.message.includes('Prüfung'), 'the value is not repeated');
    }
  });

  it('refuses such a purpose in allowed_purposes, and loads one a request can state', () => {
    const allowing = (purpose: string) =>
      BASE.replace(
        '  service_id: test.verifier\n',
        `  service_id: test.verifier\n  allowed_purposes: [${purpose}]\n`,
      );
    for (const purpose of unaskable) {
      assert.ok(
        issuesOf(allowing(purpose)).some((issue) => issue.path === 'evidence.allowed_purposes.0'),
        purpose,
      );
    }
    const fine = '"benefit eligibility (2026) #3"';
    checkPurposeText(JSON.parse(fine), 'x');
    assert.doesNotThrow(() =>
      loadVerifierConfigText(`${allowing(fine)}${claim('c', [], fine)}`, ENV, '/tmp'),
    );
  });
});
