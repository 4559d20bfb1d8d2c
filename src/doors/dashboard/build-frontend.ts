import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

// `npm run build` bundles the dashboard's TypeScript (esbuild, a dev dependency) into dist/: nothing is
// fetched at run time, from a CDN or elsewhere.
const ROOT = path.resolve(__dirname, '../../..');
const SOURCE = path.join(ROOT, 'src/doors/dashboard/frontend');
const PUBLIC = path.join(ROOT, 'dist/doors/dashboard/public');

mkdirSync(path.join(PUBLIC, 'assets'), { recursive: true });
buildSync({
  entryPoints: [path.join(SOURCE, 'main.ts')],
  bundle: true,
  minify: true,
  sourcemap: true,
  format: 'iife',
  target: ['chrome110', 'firefox110', 'safari16'],
  outfile: path.join(PUBLIC, 'assets/dashboard.js'),
  tsconfig: path.join(SOURCE, 'tsconfig.json'),
  legalComments: 'linked',
  logLevel: 'warning',
});
copyFileSync(path.join(SOURCE, 'dashboard.css'), path.join(PUBLIC, 'assets/dashboard.css'));
copyFileSync(path.join(SOURCE, 'index.html'), path.join(PUBLIC, 'index.html'));
