// The value of an environment variable a config names. Only the environment's own entries count: looked up as a
// property, a name such as `constructor` or `toString` would find the function every object inherits.

type Env = Readonly<Record<string, string | undefined>>;

export function envValue(env: Env, name: string): string | undefined {
  if (!Object.hasOwn(env, name)) return undefined;
  const value = env[name];
  return typeof value === 'string' ? value : undefined;
}
