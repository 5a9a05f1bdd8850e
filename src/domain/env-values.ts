// Reading one value of the environment: pure functions that name the variable and the value
// received when it is wrong. config.ts reads every variable through them, once.

/** A configuration mistake: reported as one line and exit code 2, never a stack trace. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Env = Record<string, string | undefined>;

export function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}; got ${JSON.stringify(raw)}`);
  }
  return raw as T;
}

export function positiveInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1)
    throw new ConfigError(`${name} must be a positive integer; got ${JSON.stringify(raw)}`);
  return Number(raw);
}

/** V8's longest string is just under 512 Mi characters; what is read whole is parsed as one. */
const STRING_BYTES_CEILING = 256 * 1024 * 1024;

/** Bytes of input to be held as one string: a positive integer up to 256 MiB. */
export function stringBytes(env: Env, name: string, fallback: number): number {
  const n = positiveInt(env, name, fallback);
  if (n > STRING_BYTES_CEILING)
    throw new ConfigError(
      `${name} must be at most ${STRING_BYTES_CEILING} (256 MiB: what is read is held as one string); got ${n}`,
    );
  return n;
}

export function nonNegativeInt(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw))
    throw new ConfigError(`${name} must be a non-negative integer; got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(`${name} must be true or false; got ${JSON.stringify(raw)}`);
}
