// Verifier config claims checked at load: CCCEV links, inputs, dependency cycles and depth, rules, CEL names.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../platform/config/config-error.ts';
import { parseConfigText } from '../../platform/config/load-config-file.ts';
import { loadVerifierConfigText, loadVerifierConfigValue } from './load-verifier-config.ts';
import { BASE, ENV, issuesAt, issuesOf } from './verifier-config-test-support.ts';

describe('verifier config', () => {
  it('refuses CCCEV links that are not absolute IRIs, naming each path among the other problems', () => {
    const withCccev = (cccev: string) =>
      BASE.replace(
        '      disclosure: { default: predicate, allowed: [predicate, redacted] }\n',
        `      disclosure: { default: predicate, allowed: [predicate, redacted] }\n      cccev: ${cccev}\n`,
      );
    const text = withCccev(
      '{ requirement: REQ-001, evidence_type_iri: "https://example.org/evidence types/x" }',
    ).replace('service_id: test.verifier', 'service_id: test.verifier\n  servce_id: x');
    const issues = issuesOf(text);
    assert.deepEqual(issues.map((i) => i.path).sort(), [
      'evidence.claims.0.cccev.evidence_type_iri',
      'evidence.claims.0.cccev.requirement',
      'evidence.servce_id',
    ]);
    for (const issue of issues.filter((i) => i.path.includes('cccev')))
      assert.match(issue.message, /must be an absolute IRI/);
    for (const invalid of [
      '"x:<y>"',
      '"https://example.org/r#a#b"',
      '"https://example.org/e%zz"',
      '"r1"',
      '""',
    ]) {
      const found = issuesOf(withCccev(`{ requirement: ${invalid}, evidence_type_iri: "urn:example:e1" }`));
      assert.deepEqual(
        found.map((i) => i.path),
        ['evidence.claims.0.cccev.requirement'],
        invalid,
      );
    }
    for (const [requirement, evidenceType] of [
      ['urn:example:requirement:r1', 'https://example.org/evidence-types/e1#v2'],
      ['http://[::1]/r%20s', 'did:web:example.org'],
    ] as const) {
      const { config } = loadVerifierConfigText(
        withCccev(`{ requirement: "${requirement}", evidence_type_iri: "${evidenceType}" }`),
        ENV,
        '/tmp',
      );
      assert.deepEqual(config.evidence.claims[0]?.cccev, { requirement, evidence_type_iri: evidenceType });
    }
  });

  it('takes declared request inputs with their types; an id or identifier is a string', () => {
    const withInputs = (inputs: string) =>
      BASE.replace('      rule: { type: cel', `      inputs: ${inputs}\n      rule: { type: cel`);
    const { config } = loadVerifierConfigText(
      withInputs(
        '[{ name: target.attributes.age, type: integer }, { name: target.identifiers.national_id, type: string }]',
      ),
      ENV,
      '/tmp',
    );
    assert.deepEqual(config.evidence.claims[0]?.inputs, [
      { name: 'target.attributes.age', type: 'integer' },
      { name: 'target.identifiers.national_id', type: 'string' },
    ]);
    assert.deepEqual(
      issuesOf(
        withInputs('[{ name: target.identifiers.national_id, type: integer }, { name: age, type: integer }]'),
      ).map((issue) => issue.path),
      ['evidence.claims.0.inputs.0.type', 'evidence.claims.0.inputs.1.name'],
    );
  });

  it('refuses two types declared for one request input where one request meets both checks', () => {
    const withInputs = (inputs: string) =>
      BASE.replace('      rule: { type: cel', `      inputs: ${inputs}\n      rule: { type: cel`);
    // Any age sent would fail one of the two checks: the claim could not be evaluated with it.
    assert.deepEqual(
      issuesAt(
        withInputs(
          '[{ name: target.attributes.age, type: integer }, { name: target.attributes.age, type: string }]',
        ),
        'evidence.claims.0.inputs.1.type',
      ),
      [
        {
          code: 'config.validation_error',
          message:
            '`target.attributes.age` is declared integer at inputs.0: one value cannot be of both types',
        },
      ],
    );
    // The same through a sub-claim, which checks the parent's request too (at any depth).
    const claim = (id: string, dependency: string, type: string) => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [${dependency}]
      inputs: [{ name: target.attributes.age, type: ${type} }]
      rule: { type: cel, expression: "claims.${dependency}.value" }`;
    const text = `${withInputs('[{ name: target.attributes.age, type: integer }]')}${claim('middle', 'alive', 'integer')}${claim('top', 'middle', 'string')}`;
    assert.deepEqual(issuesAt(text, 'evidence.claims.2.inputs.0.type'), [
      {
        code: 'config.validation_error',
        message:
          '`target.attributes.age` is declared integer by sub-claim `middle`: one value cannot be of both types',
      },
    ]);
    // Two sub-claims that disagree: their parent is where the two checks meet.
    const diamond = `${BASE}${claim('x', 'alive', 'integer')}${claim('y', 'alive', 'string')}
    - { id: both, title: Both, version: "1", subject_type: person, value: { type: boolean }, depends_on: [x, y],
        rule: { type: cel, expression: "claims.x.value && claims.y.value" } }`;
    assert.deepEqual(issuesAt(diamond, 'evidence.claims.3.depends_on'), [
      {
        code: 'config.validation_error',
        message:
          'sub-claims `x` and `y` declare `target.attributes.age` as integer and string: one value cannot be of both types',
      },
    ]);
    // The same type twice, or `any` beside a type, asks nothing contradictory.
    for (const inputs of [
      '[{ name: target.attributes.age, type: integer }, { name: target.attributes.age, type: integer }]',
      '[{ name: target.attributes.age, type: integer }, { name: target.attributes.age, type: any }]',
    ]) {
      assert.doesNotThrow(() => loadVerifierConfigText(withInputs(inputs), ENV, '/tmp'), inputs);
    }
  });

  it('rejects dependency cycles at load', () => {
    const claim = (id: string, dep: string) => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [${dep}]
      rule: { type: cel, expression: "claims.${dep}.value" }`;
    const text = `${BASE}${claim('a', 'b')}${claim('b', 'c')}${claim('c', 'a')}`;
    const issues = issuesOf(text).filter((i) => i.message.startsWith('dependency cycle'));
    assert.equal(issues.length, 1);
    assert.match(issues[0]?.message ?? '', /a -> b -> c -> a/);
  });

  it('reports every separate dependency cycle at once, a claim depending on itself included', () => {
    const claim = (id: string, deps: string) => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [${deps}]
      rule: { type: cel, expression: "true" }`;
    // Two tangles (a, b, c and x, y), a self-dependency (s), and `top` above a tangle without being in one.
    const text = `${BASE}${claim('top', 'a')}${claim('a', 'b')}${claim('b', 'a, c')}${claim('c', 'a')}${claim('x', 'y')}${claim('y', 'x')}${claim('s', 's')}`;
    const cycles = issuesOf(text)
      .filter((i) => i.message.startsWith('dependency cycle'))
      .map(({ path, message }) => ({ path, message }));
    assert.deepEqual(cycles, [
      { path: 'evidence.claims.2.depends_on', message: 'dependency cycle: a -> b -> a' },
      { path: 'evidence.claims.7.depends_on', message: 'dependency cycle: s -> s' },
      { path: 'evidence.claims.5.depends_on', message: 'dependency cycle: x -> y -> x' },
    ]);
  });

  it('refuses a sub-claim listed twice in depends_on (provenance would name it twice)', () => {
    const text = `${BASE}
    - id: twice
      title: Twice
      version: "1"
      subject_type: person
      value: { type: boolean }
      depends_on: [alive, alive]
      rule: { type: cel, expression: "claims.alive.value" }`;
    assert.deepEqual(issuesAt(text, 'evidence.claims.1.depends_on.1'), [
      { code: 'config.validation_error', message: '`alive` is already listed' },
    ]);
  });

  it('refuses sub-claims nested deeper than 32 levels, naming the claim on top, however long the chain', () => {
    // Built as a parsed value: YAML for thousands of claims would take seconds to read.
    const chained = (length: number) => {
      const raw = parseConfigText(BASE, ENV) as { evidence: { claims: unknown[] } };
      for (let i = 1; i <= length; i++) {
        const dependency = i === length ? 'alive' : `c${i + 1}`;
        raw.evidence.claims.push({
          id: `c${i}`,
          title: `c${i}`,
          version: '1',
          subject_type: 'person',
          value: { type: 'boolean' },
          depends_on: [dependency],
          rule: { type: 'cel', expression: `claims.${dependency}.value` },
        });
      }
      return raw;
    };
    const issuesOfValue = (raw: unknown) => {
      try {
        loadVerifierConfigValue(raw, ENV, '/tmp');
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        return error.issues.map(({ path, message }) => ({ path, message }));
      }
      return [];
    };
    // c1 -> ... -> c32 -> alive is 32 levels below c1.
    assert.deepEqual(issuesOfValue(chained(32)), []);
    assert.deepEqual(issuesOfValue(chained(33)), [
      {
        path: 'evidence.claims.1.depends_on',
        message:
          'claim `c1` has sub-claims 33 levels deep (c1 -> c2 -> c3 -> ... -> c33 -> alive); at most 32',
      },
    ]);
    // The longest chain a config can hold (10,000 claims in all): still one issue, not a crash.
    assert.deepEqual(issuesOfValue(chained(9_999)), [
      {
        path: 'evidence.claims.1.depends_on',
        message:
          'claim `c1` has sub-claims 9999 levels deep (c1 -> c2 -> c3 -> ... -> c9999 -> alive); at most 32',
      },
    ]);
  });

  it('says a claim id too long is refused for its length, not for a pattern it matches', () => {
    const longest = `a${'b'.repeat(127)}`;
    assert.doesNotThrow(() =>
      loadVerifierConfigText(BASE.replace('id: alive', `id: ${longest}`), ENV, '/tmp'),
    );
    const [problem] = issuesAt(BASE.replace('id: alive', `id: ${longest}b`), 'evidence.claims.0.id');
    assert.match(problem?.message ?? '', /128 characters/);
  });

  it('refuses a dependency about another kind of subject: a sub-claim is evaluated for its parent’s target', () => {
    const parent = (subjectType: string) => `
    - id: household_alive_head
      title: Household head alive
      version: "1"
      subject_type: ${subjectType}
      value: { type: boolean }
      depends_on: [alive]
      rule: { type: cel, expression: "claims.alive.value" }`;
    assert.deepEqual(issuesAt(`${BASE}${parent('household')}`, 'evidence.claims.1.depends_on.0'), [
      {
        code: 'config.validation_error',
        message:
          'claim `alive` is about subjects of type person, not household: a sub-claim is evaluated for its parent’s target',
      },
    ]);
    assert.doesNotThrow(() => loadVerifierConfigText(`${BASE}${parent('person')}`, ENV, '/tmp'));
  });

  it('checks rules: binding aliases, extract fields, CEL syntax and claim bindings, predicate on non-booleans', () => {
    const text = BASE.replace(
      'rule: { type: cel, expression: "!source.p.deceased" }',
      'rule: { type: extract, source: q, field: x }',
    )
      .replace('value: { type: boolean }', 'value: { type: string }')
      .concat(`
    - id: broken_cel
      title: Broken
      version: "1"
      subject_type: person
      rule: { type: cel, expression: "1 +", bindings: { claims: { a: { claim: alive } } } }
`);
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    assert.ok(
      messages.some((m) => /rule\.source: no source binding `q` \(did you mean `p`\?\)/.test(m)),
      messages.join('\n'),
    );
    assert.ok(messages.some((m) => /source_bindings\.p: is not read by the extract rule/.test(m)));
    assert.ok(
      messages.some((m) => /claims\.0\.disclosure\.allowed: `predicate` needs value\.type boolean/.test(m)),
    );
    assert.ok(messages.some((m) => /claims\.1\.rule\.expression: does not parse/.test(m)));
    assert.ok(
      messages.some((m) => /bindings\.claims\.a\.claim: `alive` must be listed in depends_on/.test(m)),
    );
  });

  it('refuses CEL expressions naming what the claim does not bind (names, bindings, fields, members, functions) or a pattern that does not compile', () => {
    const claim = (id: string, expression: string, extra = '') => `
    - id: ${id}
      title: ${id}
      version: "1"
      subject_type: person${extra}
      rule: { type: cel, expression: "${expression}" }`;
    const text = BASE.concat(
      claim('typo_root', '!sourse.p.deceased'),
      claim('no_binding', 'source.q.deceased'),
      claim(
        'unbound_field',
        "source.p.national_id == 'x'",
        BASE.slice(BASE.indexOf('\n      source_bindings:'), BASE.indexOf('\n      rule:')),
      ),
      claim('no_dependency', 'claims.dead.value', '\n      depends_on: [alive]'),
      claim('no_member', 'claims.alive.valeu', '\n      depends_on: [alive]'),
      claim('no_ctx_member', "ctx.todey > '2020'"),
      claim('no_function', "ctx.purpose.lowerAscii() == 'x' && foo(1)"),
      claim('bad_pattern', "ctx.purpose.matches('[')"),
      // What exists: locals shadowing roots, quoted ids, has() on any field, type names, macros, ctx.target members.
      claim(
        'fine',
        "[1].map(source, source + 1).size() == 1 && claims['alive'].satisfied == true && has(ctx.target.attributes.x) && type(1) == int && type(timestamp('2020-01-01T00:00:00Z')) == google.protobuf.Timestamp && [1].exists(v, v == int(ctx.target.attributes.n))",
        '\n      depends_on: [alive]',
      ),
    );
    const messages = issuesOf(text).map((i) => `${i.path}: ${i.message}`);
    const expected = [
      'evidence.claims.1.rule.expression: refers to `sourse`; the expression sees source, claims and ctx',
      'evidence.claims.2.rule.expression: reads `source.q`, but the claim has no source binding `q`',
      'evidence.claims.3.rule.expression: reads `source.p.national_id`, but `national_id` is not in source_bindings.p.fields',
      'evidence.claims.4.rule.expression: reads `claims.dead`, but no dependency is bound as `dead`',
      'evidence.claims.5.rule.expression: reads `claims.alive.valeu`; a dependency has value, satisfied, claim_id, version',
      'evidence.claims.6.rule.expression: reads `ctx.todey`; ctx has purpose, today, target',
      'evidence.claims.7.rule.expression: calls `lowerAscii`, which is not a CEL function here',
      'evidence.claims.7.rule.expression: calls `foo`, which is not a CEL function here',
      'evidence.claims.8.rule.expression: matches the pattern `[`, which is not a valid regular expression: error parsing regexp: missing closing ]: `[`',
    ];
    assert.deepEqual(
      messages.filter((m) => m.includes('rule.expression')),
      expected,
    );
  });
});
