#!/usr/bin/env node
// `node scripts/measure-cli.js` (after `npm run build`): wall-clock time of admin commands as an
// operator runs them (`npm run --silent admin -- …`, timed with /usr/bin/time), median of 5 runs, on
// the embedded database with and without a running server and on PostgreSQL. Targets: `--help`
// ≤ 0.5 s, any database command ≤ 1.5 s; exit 1 when one is missed.
'use strict';
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const { ROOT, admin, median, startServer, temporaryDirectory, throwAwayDatabase } = require('./lib/measure');

const RUNS = 5;
const TARGETS = { help: 0.5, database: 1.5 };

/** Seconds one `npm run --silent admin -- ARGS` took, per /usr/bin/time. */
function timed(args, env) {
  const childEnv = { ...process.env, ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const result = spawnSync('/usr/bin/time', ['-f', 'ELAPSED %e %U %S', 'npm', 'run', '--silent', 'admin', '--', ...args], {
    cwd: ROOT,
    env: childEnv,
    encoding: 'utf8',
  });
  const elapsed = /ELAPSED ([\d.]+) ([\d.]+) ([\d.]+)\s*$/.exec(result.stderr);
  if (result.status !== 0 || !elapsed) throw new Error(`admin ${args.join(' ')}: exit ${result.status}\n${result.stderr}`);
  return { wall: Number(elapsed[1]), cpu: Number(elapsed[2]) + Number(elapsed[3]) };
}

function measure(rows, mode, label, args, env, target) {
  timed(args, env); // warm-up: file cache, and a build if the sources changed
  const runs = Array.from({ length: RUNS }, () => timed(args, env));
  rows.push({ mode, label, seconds: median(runs.map((run) => run.wall)), cpu: median(runs.map((run) => run.cpu)), target });
}

function databaseCommands(rows, mode, env) {
  const organization = admin(['org', 'create', '--name', 'Timing'], env);
  const key = admin(['key', 'create', '--org', organization.id, '--name', 'timing', '--permissions', 'events:read'], env);
  const commands = [
    ['org create', ['org', 'create', '--name', 'Timed']],
    ['org list', ['org', 'list']],
    ['key create', ['key', 'create', '--org', organization.id, '--name', 'timed', '--permissions', 'events:read']],
    ['key list', ['key', 'list', '--org', organization.id]],
    ['key show', ['key', 'show', key.id]],
    ['db migrate', ['db', 'migrate']],
  ];
  for (const [label, args] of commands) measure(rows, mode, label, args, env, TARGETS.database);
}

async function main() {
  const rows = [];
  measure(rows, 'no database', '--help', ['--help'], {}, TARGETS.help);
  measure(rows, 'no database', 'org update --help', ['org', 'update', '--help'], {}, TARGETS.help);

  const dataDir = temporaryDirectory('cli');
  try {
    const server = await startServer({ DATA_DIR: dataDir });
    try {
      databaseCommands(rows, 'embedded, server running', { DATA_DIR: dataDir });
    } finally {
      await server.stop();
    }
    databaseCommands(rows, 'embedded, no server', { DATA_DIR: dataDir });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }

  const database = await throwAwayDatabase('cli');
  if (database) {
    try {
      admin(['db', 'migrate'], { DATABASE_URL: database.url });
      databaseCommands(rows, 'PostgreSQL (DATABASE_URL)', { DATABASE_URL: database.url });
    } finally {
      await database.drop();
    }
  }

  // CPU time (user + system, npm included) shows what the machine's load hides in the wall clock.
  console.log(`load average at the end: ${require('node:os').loadavg()[0].toFixed(1)} (${require('node:os').cpus().length} cores)`);
  console.log(`| Mode | Command | Median of ${RUNS} | CPU (median) | Target |`);
  console.log('|---|---|---|---|---|');
  for (const row of rows) {
    console.log(`| ${row.mode} | \`${row.label}\` | ${row.seconds.toFixed(2)} s | ${row.cpu.toFixed(2)} s | ≤ ${row.target} s |`);
  }
  const missed = rows.filter((row) => row.seconds > row.target);
  for (const row of missed) console.log(`MISSED: ${row.mode} ${row.label}`);
  process.exitCode = missed.length > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
