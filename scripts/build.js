#!/usr/bin/env node
// Compiles src/ to dist/ (tsc). With --if-stale, only when a source changed since the last build:
// `npm start` and `npm run admin` run it first, so they never wait for a compiler when nothing changed
// (the check reads file times, a few milliseconds). The stamp records when the last build started and
// which sources it saw, so an edit made during a build, or a deleted file, still counts as a change.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const stampFile = path.join(root, 'dist', '.build-stamp.json');
const configFiles = ['tsconfig.json', 'tsconfig.build.json'];

function sources() {
  const found = [];
  const walk = (directory) => {
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const full = path.join(directory, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts')) found.push(full);
    }
  };
  walk(path.join(root, 'src'));
  return [...found, ...configFiles.map((file) => path.join(root, file))].sort();
}

function isStale(files) {
  let stamp;
  try {
    stamp = JSON.parse(fs.readFileSync(stampFile, 'utf8'));
  } catch {
    return true;
  }
  const relative = files.map((file) => path.relative(root, file));
  if (JSON.stringify(relative) !== JSON.stringify(stamp.sources)) return true;
  return files.some((file) => fs.statSync(file).mtimeMs > stamp.startedAt);
}

function build(files) {
  const startedAt = Date.now();
  const tsc = require.resolve('typescript/bin/tsc', { paths: [root] });
  // Compiler output goes to stderr: the admin CLI's stdout is one JSON object.
  const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
  // The dashboard's pages: bundled by esbuild into dist/doors/dashboard/public (src/doors/dashboard/build-frontend.ts).
  const pages = spawnSync(process.execPath, [path.join(root, 'dist/doors/dashboard/build-frontend.js')], { stdio: ['ignore', 2, 2] });
  if (pages.status !== 0) process.exit(pages.status ?? 1);
  const sourcesSeen = files.map((file) => path.relative(root, file));
  fs.writeFileSync(stampFile, `${JSON.stringify({ startedAt, sources: sourcesSeen })}\n`);
}

const files = sources();
if (!process.argv.includes('--if-stale') || isStale(files)) {
  if (process.argv.includes('--if-stale')) process.stderr.write('sources changed since the last build: compiling (tsc)…\n');
  build(files);
}
