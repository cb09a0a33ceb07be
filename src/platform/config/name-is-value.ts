// A variable name that is another variable's value: a `${VAR}` written where the name belongs is expanded before
// the name is looked up, so the "name" is then the secret itself and must not be printed as the unset name.
import { envValue } from './env-value.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Why `name` is not set when it is the value of other variables, without repeating it; else undefined. */
export function nameIsValueMessage(env: Env, name: string): string | undefined {
  const holders = Object.keys(env)
    .filter((other) => envValue(env, other) === name)
    .sort();
  const [first] = holders;
  if (first === undefined) return undefined;
  return (
    `no environment variable of the name given is set, and the name given is the value of ${holders.join(' or ')}` +
    ` (not shown): write the variable's name (${first}), not \${${first}}`
  );
}

/** The message for a variable a config names that is not set, which never repeats a value standing for the name. */
export function unsetVariableMessage(env: Env, name: string): string {
  return nameIsValueMessage(env, name) ?? `environment variable ${name} is not set`;
}
