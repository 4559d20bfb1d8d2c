import { ConfigError, DEFAULT_RETRY_SCHEDULE_MS, loadConfig } from '../src/foundation/config';
import { isForbiddenAddress } from '../src/platform/outbox/webhook-destination';
import { ServerSecrets } from '../src/platform/crypto/server-secrets';
import { retryDelayMs } from '../src/modules/webhook/webhook-worker';

test('webhook settings: D18 defaults, and bad values stop the start with a clear message', () => {
  const defaults = loadConfig({}).webhooks;
  expect(defaults).toEqual({
    worker: true,
    allowPrivateNetworks: false,
    timeoutMs: 10_000,
    retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
    pollIntervalMs: 1_000,
    leaseMs: 30_000,
    concurrency: 16,
  });
  expect(loadConfig({ WEBHOOK_WORKER: 'false', WEBHOOK_RETRY_SCHEDULE_MS: '10, 20' }).webhooks).toMatchObject({ worker: false, retryScheduleMs: [10, 20] });
  expect(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE_MS: '5s,1m' })).toThrow(ConfigError);
  expect(() => loadConfig({ WEBHOOK_TIMEOUT_MS: '5000', WEBHOOK_LEASE_MS: '5000' })).toThrow(/WEBHOOK_LEASE_MS \(5000\) must be longer/);
  expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'maybe' })).toThrow(ConfigError);
});

test('retry delays follow the schedule with ±20 % jitter, and end after the last', () => {
  for (const [index, base] of DEFAULT_RETRY_SCHEDULE_MS.entries()) {
    const delays = Array.from({ length: 200 }, () => retryDelayMs(DEFAULT_RETRY_SCHEDULE_MS, index)!);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(base * 0.8);
    expect(Math.max(...delays)).toBeLessThanOrEqual(base * 1.2);
    expect(new Set(delays).size).toBeGreaterThan(1);
  }
  expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE_MS, DEFAULT_RETRY_SCHEDULE_MS.length)).toBeUndefined();
});

test('only global unicast addresses are allowed destinations', () => {
  for (const address of ['127.0.0.1', '10.1.1.1', '172.31.0.1', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:10.0.0.1', 'not-an-ip']) {
    expect([address, isForbiddenAddress(address)]).toEqual([address, true]);
  }
  for (const address of ['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
    expect([address, isForbiddenAddress(address)]).toEqual([address, false]);
  }
});

test('signing secrets are sealed with the server key: another key cannot open them, and the sealed form hides them', () => {
  const box = new ServerSecrets('server key one', undefined).box('webhook-signing-secret');
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const sealed = box.seal(secret);
  expect(sealed).not.toContain(secret.slice(6));
  expect(box.seal(secret)).not.toBe(sealed);
  expect(box.open(sealed)).toBe(secret);
  expect(() => new ServerSecrets('server key two', undefined).box('webhook-signing-secret').open(sealed)).toThrow();
});
