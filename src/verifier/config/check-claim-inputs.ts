// Load-time check of the types claims declare for target attributes (`inputs`). A request is checked against the
// declarations of each claim and of all its sub-claims, so two types for one attribute there refuse every value the
// attribute could take: the claim could never be evaluated with it.
import type { ConfigIssue } from '../../platform/config/config-error.ts';
import { walkDependencies } from '../claims/walk-dependencies.ts';
import type { ClaimConfig, ValueType, VerifierConfig } from './schema.ts';

/** Attribute path -> type -> the claim that first declares it (own declarations first, then depends_on order). */
type Declarations = Map<string, Map<ValueType, string>>;

export function checkClaimInputs(config: VerifierConfig): ConfigIssue[] {
  const claims = new Map(config.evidence.claims.map((claim) => [claim.id, claim]));
  const known = new Map<string, Declarations>();
  // Dependencies first, so each claim's are known when it is reached; one closing a cycle (reported by the
  // dependency check) is not known yet and adds nothing.
  const { order } = walkDependencies(new Map([...claims].map(([id, claim]) => [id, claim.depends_on])));
  for (const id of order) {
    const claim = claims.get(id) as ClaimConfig;
    const declarations: Declarations = new Map();
    const add = (path: string, type: ValueType, by: string) => {
      const types = declarations.get(path) ?? new Map<ValueType, string>();
      if (!types.has(type)) types.set(type, by);
      declarations.set(path, types);
    };
    for (const input of attributeInputs(claim)) add(input.name, input.type, id);
    for (const dependency of claim.depends_on) {
      for (const [path, types] of known.get(dependency) ?? []) {
        for (const [type, by] of types) add(path, type, by);
      }
    }
    known.set(id, declarations);
  }
  const declarationsOf = (id: string): Declarations => known.get(id) ?? new Map();

  return config.evidence.claims.flatMap((claim, c) => {
    const issues: ConfigIssue[] = [];
    const inherited = new Set(
      claim.depends_on.flatMap((dependency) => conflicts(declarationsOf(dependency))),
    );
    const declarations = declarationsOf(claim.id);
    // Each conflict once, where it arises: at the claim whose declarations meet first.
    for (const path of conflicts(declarations).filter((conflict) => !inherited.has(conflict))) {
      const types = declarations.get(path) as Map<ValueType, string>;
      const [[firstType, firstBy], [secondType, secondBy]] = [...types] as [
        [ValueType, string],
        [ValueType, string],
      ];
      const declares = (type: (t: ValueType) => boolean) =>
        claim.inputs.findIndex((input) => input.name === path && input.type !== 'any' && type(input.type));
      const own = declares((type) => type !== firstType);
      const issue = (at: string, message: string): ConfigIssue => ({
        path: `evidence.claims.${c}.${at}`,
        code: 'config.validation_error',
        message: `${message}: one value cannot be of both types`,
      });
      if (own >= 0 && firstBy === claim.id) {
        const first = declares((type) => type === firstType);
        issues.push(issue(`inputs.${own}.type`, `\`${path}\` is declared ${firstType} at inputs.${first}`));
      } else if (firstBy === claim.id) {
        const first = declares((type) => type === firstType);
        issues.push(
          issue(`inputs.${first}.type`, `\`${path}\` is declared ${secondType} by sub-claim \`${secondBy}\``),
        );
      } else {
        issues.push(
          issue(
            'depends_on',
            `sub-claims \`${firstBy}\` and \`${secondBy}\` declare \`${path}\` as ${firstType} and ${secondType}`,
          ),
        );
      }
    }
    return issues;
  });
}

/** The typed attribute inputs (`any` checks nothing; ids and identifiers are strings by the request schema). */
function attributeInputs(claim: ClaimConfig): ClaimConfig['inputs'] {
  return claim.inputs.filter((input) => input.name.startsWith('target.attributes.') && input.type !== 'any');
}

function conflicts(declarations: Declarations): string[] {
  return [...declarations].filter(([, types]) => types.size > 1).map(([path]) => path);
}
