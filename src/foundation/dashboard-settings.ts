import { ConfigError } from './env-values';

/** Settings of the dashboard, read from the environment like every other setting (see docs/configuration.md). */
export interface DashboardSettings {
  /** Where people open the dashboard; invitation links start with it. */
  readonly publicUrl: string;
  /** A session unused this long ends (DASHBOARD_IDLE_MINUTES, default 30). */
  readonly idleTimeoutMs: number;
  /** A session ends this long after sign-in, used or not (DASHBOARD_SESSION_HOURS, default 12). */
  readonly absoluteLifetimeMs: number;
  /** How often in-memory usage counters are written to PostgreSQL (USAGE_FLUSH_MS, default 10 s). */
  readonly usageFlushMs: number;
}

function dashboardWhole(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, got "${raw}"`);
  return value;
}

export function loadDashboardSettings(env: NodeJS.ProcessEnv = process.env): DashboardSettings {
  const port = env.PORT?.trim() || '8443';
  const publicUrl = (env.PUBLIC_URL?.trim() || `https://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https:\/\/[^/]+/.test(publicUrl)) throw new ConfigError(`PUBLIC_URL must be an https URL, got "${publicUrl}"`);
  return {
    publicUrl,
    idleTimeoutMs: dashboardWhole(env, 'DASHBOARD_IDLE_MINUTES', 30, 1, 24 * 60) * 60_000,
    absoluteLifetimeMs: dashboardWhole(env, 'DASHBOARD_SESSION_HOURS', 12, 1, 24 * 30) * 3_600_000,
    usageFlushMs: dashboardWhole(env, 'USAGE_FLUSH_MS', 10_000, 10, 3_600_000),
  };
}
