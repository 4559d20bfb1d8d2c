import { ConfigError } from '../src/foundation/env-values';
import { loadDashboardSettings } from '../src/foundation/dashboard-settings';

test('defaults: links on https://localhost:$PORT, 30 min idle, 12 h lifetime, usage written every 10 s', () => {
  expect(loadDashboardSettings({})).toEqual({ publicUrl: 'https://localhost:8443', idleTimeoutMs: 30 * 60_000, absoluteLifetimeMs: 12 * 3_600_000, usageFlushMs: 10_000 });
  expect(loadDashboardSettings({ PORT: '9443' }).publicUrl).toBe('https://localhost:9443');
  expect(loadDashboardSettings({ PUBLIC_URL: 'https://events.example.com/', DASHBOARD_IDLE_MINUTES: '5', DASHBOARD_SESSION_HOURS: '1' })).toMatchObject({
    publicUrl: 'https://events.example.com',
    idleTimeoutMs: 5 * 60_000,
    absoluteLifetimeMs: 3_600_000,
  });
});

test('bad values stop the start with the variable named', () => {
  expect(() => loadDashboardSettings({ PUBLIC_URL: 'http://events.example.com' })).toThrow(new ConfigError('PUBLIC_URL must be an https URL, got "http://events.example.com"'));
  expect(() => loadDashboardSettings({ DASHBOARD_IDLE_MINUTES: '0' })).toThrow(/DASHBOARD_IDLE_MINUTES must be a whole number from 1/);
  expect(() => loadDashboardSettings({ DASHBOARD_SESSION_HOURS: 'soon' })).toThrow(/DASHBOARD_SESSION_HOURS/);
  expect(() => loadDashboardSettings({ USAGE_FLUSH_MS: '-1' })).toThrow(/USAGE_FLUSH_MS/);
});
