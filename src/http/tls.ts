import { X509Certificate } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import type { Config } from '../foundation/config';

export interface TlsCredentials {
  key: string;
  cert: string;
  selfSigned: boolean;
}

const RENEW_BEFORE_MS = 7 * 24 * 3600 * 1000;

async function readIfValid(certFile: string, keyFile: string): Promise<TlsCredentials | undefined> {
  try {
    const [cert, key] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
    const validTo = new Date(new X509Certificate(cert).validTo).getTime();
    return validTo - Date.now() > RENEW_BEFORE_MS ? { cert, key, selfSigned: true } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The configured certificate (TLS_CERT_FILE / TLS_KEY_FILE), or a self-signed one for localhost kept
 * in the data directory and reused across starts.
 */
export async function loadTlsCredentials(config: Config, logger: Logger): Promise<TlsCredentials> {
  if (config.tlsCertFile && config.tlsKeyFile) {
    const [cert, key] = await Promise.all([readFile(config.tlsCertFile, 'utf8'), readFile(config.tlsKeyFile, 'utf8')]);
    return { cert, key, selfSigned: false };
  }
  const directory = path.join(config.dataDir, 'tls');
  const certFile = path.join(directory, 'localhost.crt');
  const keyFile = path.join(directory, 'localhost.key');
  let credentials = await readIfValid(certFile, keyFile);
  if (!credentials) {
    const notBefore = new Date(Date.now() - 60_000);
    // Loaded only when a certificate is made (its crypto stack costs start-up time otherwise).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const selfsigned = require('selfsigned') as typeof import('selfsigned');
    const pems = await selfsigned.generate([{ name: 'commonName', value: 'localhost' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      notBeforeDate: notBefore,
      notAfterDate: new Date(notBefore.getTime() + 365 * 24 * 3600 * 1000),
      extensions: [
        { name: 'basicConstraints', cA: false },
        { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
        { name: 'extKeyUsage', serverAuth: true },
        {
          name: 'subjectAltName',
          altNames: [
            { type: 2, value: 'localhost' },
            { type: 7, ip: '127.0.0.1' },
            { type: 7, ip: '::1' },
          ],
        },
      ],
    });
    await mkdir(directory, { recursive: true, mode: 0o700 });
    await writeFile(certFile, pems.cert, { mode: 0o644 });
    await writeFile(keyFile, pems.private, { mode: 0o600 });
    credentials = { cert: pems.cert, key: pems.private, selfSigned: true };
  }
  logger.warn(
    { certFile },
    'TLS_CERT_FILE/TLS_KEY_FILE not set: serving a self-signed certificate for localhost (clients must trust it, e.g. curl --cacert)',
  );
  return credentials;
}
