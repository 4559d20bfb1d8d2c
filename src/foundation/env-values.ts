/*
 * Reading one setting from the environment: whole numbers, durations, flags and optional strings,
 * each refused with a ConfigError that names the variable (src/foundation/config.ts and
 * dashboard-settings.ts read every setting through these).
 */

export class ConfigError extends Error {}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A duration written as a whole number and a unit: `500ms`, `90s`, `15m`, `12h`, `30d`. */
export function duration(env: NodeJS.ProcessEnv, name: string, fallbackMs: number, minMs: number, maxMs: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallbackMs;
  const match = /^(\d+)\s*(ms|s|m|h|d)$/.exec(raw);
  if (!match) throw new ConfigError(`${name} must be a whole number and a unit (ms, s, m, h, d), like 30d; got "${raw}"`);
  const value = Number(match[1]) * DURATION_UNITS[match[2]];
  if (value < minMs || value > maxMs) throw new ConfigError(`${name} must be between ${minMs / 1000} s and ${maxMs / 86_400_000} days, got "${raw}"`);
  return value;
}

export function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

export function optional(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw.trim();
}

export function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  const raw = optional(env, name);
  if (raw === undefined) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}
