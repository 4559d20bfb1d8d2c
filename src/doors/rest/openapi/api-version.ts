import { readFileSync } from 'node:fs';
import path from 'node:path';

/** The package version (src/ and dist/ both sit two levels below package.json). */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../../../package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
