import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, loadConfig } from '../src/foundation/config';
import { deriveFromSecret, SealedValueUnreadable, secretFingerprint } from '../src/platform/crypto/secret-box';
import { existingServerSecrets, KEY_FILE, LEGACY_KEY_FILE, loadServerSecrets, ServerSecrets } from '../src/platform/crypto/server-secrets';

// D24 without a database: one secret, a key per purpose (HKDF), the v1 values of before, the previous
// value of a rotation, the settings and the development key file.

/** A value sealed the way the service did before D24 (`v1`: AES-256-GCM under sha256 of the raw secret). */
function sealV1(secret: string, plain: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', createHash('sha256').update(secret, 'utf8').digest(), iv);
  const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64')}`;
}

test('each purpose has its own key: a sealed idempotent answer does not open as a webhook secret, nor the other way', () => {
  const secrets = new ServerSecrets('one shared server secret', undefined);
  const answers = secrets.box('idempotent-answer');
  const signing = secrets.box('webhook-signing-secret');
  const sealedAnswer = answers.seal('{"key":"nk_live_shown_once"}');
  const sealedSecret = signing.seal('whsec_abc');
  expect(answers.open(sealedAnswer)).toBe('{"key":"nk_live_shown_once"}');
  expect(signing.open(sealedSecret)).toBe('whsec_abc');
  expect(() => signing.open(sealedAnswer)).toThrow(SealedValueUnreadable);
  expect(() => answers.open(sealedSecret)).toThrow(SealedValueUnreadable);
  // Never the raw secret, nor its plain hash (the key before D24): HKDF with the purpose as its label.
  const raw = createHash('sha256').update('one shared server secret', 'utf8').digest();
  const keys = ['idempotent-answer', 'webhook-signing-secret'].map((purpose) => deriveFromSecret('one shared server secret', `key:${purpose}`));
  expect(keys[0].equals(keys[1])).toBe(false);
  expect(keys.some((key) => key.equals(raw))).toBe(false);
});

test('sealed values name the secret that sealed them, hide the plain text, and never open under another secret', () => {
  const secrets = new ServerSecrets('secret A', undefined);
  const box = secrets.box('webhook-signing-secret');
  const sealed = box.seal('whsec_plain');
  expect(sealed).toMatch(new RegExp(`^v2:${secrets.current.fingerprint.slice(0, 12)}:[A-Za-z0-9+/=]+$`));
  expect(sealed).not.toContain('plain');
  expect(box.seal('whsec_plain')).not.toBe(sealed);
  expect(box.isCurrent(sealed)).toBe(true);
  expect(() => new ServerSecrets('secret B', undefined).box('webhook-signing-secret').open(sealed)).toThrow(/another server secret/);
  expect(() => box.open('v9:whatever')).toThrow(SealedValueUnreadable);
  // A damaged value does not open either.
  const damaged = `${sealed.slice(0, -4)}AAAA`;
  expect(() => box.open(damaged)).toThrow(SealedValueUnreadable);
});

test('values sealed before D24 (v1) still open, and re-seal into v2', () => {
  const box = new ServerSecrets('the old key', undefined).box('idempotent-answer');
  const old = sealV1('the old key', 'stored answer');
  expect(box.open(old)).toBe('stored answer');
  expect(box.isCurrent(old)).toBe(false);
  const resealed = box.reseal(old)!;
  expect(resealed).toMatch(/^v2:/);
  expect(box.open(resealed)).toBe('stored answer');
  expect(box.reseal(resealed)).toBe(resealed);
  expect(() => new ServerSecrets('another key', undefined).box('idempotent-answer').open(old)).toThrow(SealedValueUnreadable);
});

test('during a rotation: seals with SECRET_KEY, opens with SECRET_KEY_PREVIOUS too, and re-seals under the new one', () => {
  const before = new ServerSecrets('old value', undefined);
  const during = new ServerSecrets('new value', 'old value');
  const after = new ServerSecrets('new value', undefined);
  const sealedBefore = before.box('webhook-signing-secret').seal('whsec_1');
  const legacy = sealV1('old value', 'whsec_0');
  expect(during.box('webhook-signing-secret').open(sealedBefore)).toBe('whsec_1');
  expect(during.box('webhook-signing-secret').open(legacy)).toBe('whsec_0');
  const sealedDuring = during.box('webhook-signing-secret').seal('whsec_2');
  expect(after.box('webhook-signing-secret').open(sealedDuring)).toBe('whsec_2');
  expect(() => after.box('webhook-signing-secret').open(sealedBefore)).toThrow(SealedValueUnreadable);
  const resealed = during.box('webhook-signing-secret').reseal(sealedBefore)!;
  expect(after.box('webhook-signing-secret').open(resealed)).toBe('whsec_1');
  expect(new ServerSecrets('unrelated', undefined).box('webhook-signing-secret').reseal(sealedBefore)).toBeUndefined();
  // The database's fingerprint may be either value's while the rotation lasts.
  expect(during.accepts(before.current.fingerprint)).toBe(true);
  expect(during.accepts(after.current.fingerprint)).toBe(true);
  expect(after.accepts(before.current.fingerprint)).toBe(false);
});

test('the fingerprint is HKDF-derived under its own label: it is neither the secret, its hash, nor a key', () => {
  const fingerprint = secretFingerprint('s3cret value');
  expect(fingerprint).toMatch(/^[0-9a-f]{64}$/);
  expect(fingerprint).toBe(secretFingerprint('s3cret value'));
  expect(fingerprint).not.toBe(secretFingerprint('s3cret valuf'));
  expect(fingerprint).not.toBe(createHash('sha256').update('s3cret value').digest('hex'));
  for (const purpose of ['idempotent-answer', 'webhook-signing-secret']) {
    expect(fingerprint).not.toBe(deriveFromSecret('s3cret value', `key:${purpose}`).toString('hex'));
  }
});

test('settings: SECRET_KEY, its old name WEBHOOK_SECRET_KEY, both only when equal, SECRET_KEY_PREVIOUS only beside SECRET_KEY', () => {
  expect(loadConfig({}).secret).toEqual({ key: undefined, keySetting: 'SECRET_KEY', previous: undefined });
  expect(loadConfig({ SECRET_KEY: ' abc ' }).secret).toEqual({ key: 'abc', keySetting: 'SECRET_KEY', previous: undefined });
  expect(loadConfig({ WEBHOOK_SECRET_KEY: 'abc' }).secret).toEqual({ key: 'abc', keySetting: 'WEBHOOK_SECRET_KEY', previous: undefined });
  expect(loadConfig({ SECRET_KEY: 'abc', WEBHOOK_SECRET_KEY: 'abc' }).secret.key).toBe('abc');
  expect(loadConfig({ SECRET_KEY: 'new', SECRET_KEY_PREVIOUS: 'old' }).secret).toEqual({ key: 'new', keySetting: 'SECRET_KEY', previous: 'old' });
  expect(() => loadConfig({ SECRET_KEY: 'abc', WEBHOOK_SECRET_KEY: 'abd' })).toThrow(
    new ConfigError('SECRET_KEY and WEBHOOK_SECRET_KEY (its old name) are both set, to different values: keep only SECRET_KEY'),
  );
  expect(() => loadConfig({ SECRET_KEY_PREVIOUS: 'old' })).toThrow(/SECRET_KEY_PREVIOUS is set without SECRET_KEY/);
});

describe('the development default: a key file in DATA_DIR', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'event-service-secret-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));
  const settings = { key: undefined, keySetting: 'SECRET_KEY' as const, previous: undefined };

  test('made once (mode 0600) and read again; its content is a SECRET_KEY that agrees with it', () => {
    expect(existingServerSecrets(settings, dataDir)).toBeUndefined();
    const first = loadServerSecrets(settings, dataDir);
    const file = path.join(dataDir, KEY_FILE);
    expect(first.source).toEqual({ kind: 'file', path: file });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(loadServerSecrets(settings, dataDir).current.fingerprint).toBe(first.current.fingerprint);
    const content = readFileSync(file, 'utf8').trim();
    expect(new ServerSecrets(content, undefined).current.fingerprint).toBe(first.current.fingerprint);
  });

  test('the key file of before D24 (webhook-secret.key) is still read, and no new one is made beside it', () => {
    writeFileSync(path.join(dataDir, LEGACY_KEY_FILE), 'legacy key material\n', { mode: 0o600 });
    const secrets = loadServerSecrets(settings, dataDir);
    expect(secrets.source).toEqual({ kind: 'file', path: path.join(dataDir, LEGACY_KEY_FILE) });
    expect(secrets.current.fingerprint).toBe(secretFingerprint('legacy key material'));
    expect(() => statSync(path.join(dataDir, KEY_FILE))).toThrow();
  });

  test('SECRET_KEY wins over any key file', () => {
    loadServerSecrets(settings, dataDir);
    const secrets = loadServerSecrets({ key: 'set', keySetting: 'SECRET_KEY', previous: undefined }, dataDir);
    expect(secrets.source).toEqual({ kind: 'setting', name: 'SECRET_KEY' });
    expect(secrets.current.fingerprint).toBe(secretFingerprint('set'));
  });
});
