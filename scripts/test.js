#!/usr/bin/env node
// `npm test`: builds, then runs jest and, beside it at a lower CPU priority, the static checks
// (typecheck, ESLint, dependency-cruiser, one after the other). Jest waits on the database and on
// the processes it starts, and the checks fill those gaps on a machine with few cores. The checks'
// output is printed when they end; the run fails if the build, any check or jest fails. Arguments
// are passed to jest (`npm test -- test/zero-config.test.ts`).
'use strict';
const { spawn, spawnSync } = require('node:child_process');

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const CHECKS = ['typecheck', 'lint', 'lint:imports'];

function run(command, args, options) {
  return new Promise((resolve) => {
    const child = spawn(command, args, options);
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${error.message}\n` }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output }));
  });
}

/** `nice -n 10` where there is one: jest keeps the CPU it wants, the checks take what is left. */
const niceAvailable = process.platform !== 'win32' && spawnSync('nice', ['true']).status === 0;
const lowPriority = (command, args) => (niceAvailable ? ['nice', ['-n', '10', command, ...args]] : [command, args]);

async function checks() {
  let printed = '';
  for (const name of CHECKS) {
    const [command, args] = lowPriority(npm, ['run', '--silent', name]);
    const { code, output } = await run(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (code !== 0) return { failed: name, output };
    printed += output;
  }
  return { failed: undefined, output: printed };
}

async function main() {
  if (spawnSync(npm, ['run', '--silent', 'build'], { stdio: 'inherit' }).status !== 0) return 1;
  const jest = run(process.execPath, [require.resolve('jest/bin/jest'), ...process.argv.slice(2)], { stdio: 'inherit' });
  const [checked, tested] = await Promise.all([checks(), jest]);
  if (checked.failed) {
    process.stderr.write(`\nnpm run ${checked.failed} failed:\n${checked.output}`);
    return 1;
  }
  process.stdout.write(`\n${checked.output}Checks passed: ${CHECKS.map((name) => `npm run ${name}`).join(', ')}.\n`);
  return tested.code;
}

main().then((code) => {
  process.exitCode = code;
});
