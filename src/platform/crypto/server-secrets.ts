import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { SecretSettings } from '../../foundation/config';
import { keyIdOf, SecretBox, secretValue, type SecretPurpose, type SecretValue } from './secret-box';

/** The development default's key file in DATA_DIR (D24), and its name before D24 (still read). */
export const KEY_FILE = 'secret.key';
export const LEGACY_KEY_FILE = 'webhook-secret.key';

/** Where this process's secret came from, for the messages that tell an operator where the right value lives. */
export type SecretSource =
  | { readonly kind: 'setting'; readonly name: 'SECRET_KEY' | 'WEBHOOK_SECRET_KEY' }
  | { readonly kind: 'file'; readonly path: string };

/**
 * The server secret (D24): one value that every instance and the CLI share, from which each purpose
 * derives its own key (HKDF), and during a rotation the previous value beside it. Sealing uses the
 * current value; opening falls back to the previous one.
 */
export class ServerSecrets {
  private readonly boxes = new Map<SecretPurpose, SecretBox>();
  readonly current: SecretValue;
  readonly previous: SecretValue | undefined;

  constructor(
    current: string,
    previous: string | undefined,
    readonly source: SecretSource = { kind: 'setting', name: 'SECRET_KEY' },
  ) {
    this.current = secretValue(current);
    this.previous = previous === undefined || previous === current ? undefined : secretValue(previous);
  }

  /** The box of one purpose (webhook signing secrets, stored idempotent answers). */
  box(purpose: SecretPurpose): SecretBox {
    let box = this.boxes.get(purpose);
    if (!box) {
      box = new SecretBox(purpose, this.previous ? [this.current, this.previous] : [this.current]);
      this.boxes.set(purpose, box);
    }
    return box;
  }

  /** Whether a recorded fingerprint is this secret's (or, during a rotation, the previous one's). */
  accepts(fingerprint: string): boolean {
    return fingerprint === this.current.fingerprint || fingerprint === this.previous?.fingerprint;
  }
}

/** A fingerprint's short form, safe to print (the key id of sealed values): enough to tell two secrets apart. */
export const shortFingerprint = (fingerprint: string): string => keyIdOf(fingerprint);

function readKeyFile(file: string): string | undefined {
  try {
    const material = readFileSync(file, 'utf8').trim();
    return material === '' ? undefined : material;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * The secret a process runs with: SECRET_KEY (or its old name WEBHOOK_SECRET_KEY) when set, which every
 * instance and the CLI must share; else the development default, a random value kept in
 * DATA_DIR/secret.key (or DATA_DIR/webhook-secret.key, its name before D24), created once. The key
 * file's content is a valid SECRET_KEY: setting it on another instance makes both agree.
 */
export function loadServerSecrets(settings: SecretSettings, dataDir: string): ServerSecrets {
  return existingServerSecrets(settings, dataDir) ?? createKeyFile(dataDir);
}

/** The secret SECRET_KEY or an existing key file gives; undefined when neither does (no key file is made). */
export function existingServerSecrets(settings: SecretSettings, dataDir: string): ServerSecrets | undefined {
  if (settings.key !== undefined) return new ServerSecrets(settings.key, settings.previous, { kind: 'setting', name: settings.keySetting });
  const file = path.join(dataDir, KEY_FILE);
  const legacy = path.join(dataDir, LEGACY_KEY_FILE);
  const current = readKeyFile(file);
  if (current !== undefined) return new ServerSecrets(current, undefined, { kind: 'file', path: file });
  const old = readKeyFile(legacy);
  return old === undefined ? undefined : new ServerSecrets(old, undefined, { kind: 'file', path: legacy });
}

/**
 * The secret in the key file a server recorded (`recordedSecret`), for a CLI that has none of its own
 * or another one from its own DATA_DIR, and no SECRET_KEY: only a file named like a key file, owned by
 * this user and readable by it alone (as the server makes it), and only when its fingerprint is the
 * database's. Undefined otherwise.
 */
export function keyFileSecrets(file: string, fingerprint: string): ServerSecrets | undefined {
  if (![KEY_FILE, LEGACY_KEY_FILE].includes(path.basename(file))) return undefined;
  try {
    const stats = statSync(file);
    if ((stats.mode & 0o077) !== 0 || (typeof process.getuid === 'function' && stats.uid !== process.getuid())) return undefined;
  } catch {
    return undefined;
  }
  const material = readKeyFile(file);
  if (material === undefined) return undefined;
  const secrets = new ServerSecrets(material, undefined, { kind: 'file', path: file });
  return secrets.accepts(fingerprint) ? secrets : undefined;
}

function createKeyFile(dataDir: string): ServerSecrets {
  const file = path.join(dataDir, KEY_FILE);
  mkdirSync(dataDir, { recursive: true });
  let material = randomBytes(32).toString('base64');
  try {
    writeFileSync(file, `${material}\n`, { mode: 0o600, flag: 'wx' });
  } catch {
    // Another process created it first: use theirs.
    material = readFileSync(file, 'utf8').trim();
  }
  chmodSync(file, 0o600);
  return new ServerSecrets(material, undefined, { kind: 'file', path: file });
}
