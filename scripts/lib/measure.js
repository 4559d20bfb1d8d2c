'use strict';
// Shared by the measuring scripts (scripts/measure-*.js): a server process started as a newcomer
// starts it, a throw-away PostgreSQL database, and small statistics. Scripts, not tests: they print
// figures and exit 1 when a target is missed.
const { spawn, spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const https = require('node:https');
const os = require('node:os');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function temporaryDirectory(label) {
  return fs.mkdtempSync(path.join(os.tmpdir(), `event-service-measure-${label}-`));
}

/** Resident and peak resident memory of a process, in MB (Linux /proc). */
function memoryOf(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)[1]) / 1024;
  return { rssMb: field('VmRSS'), peakMb: field('VmHWM') };
}

/**
 * `node dist/server.js` with `env` (no DATABASE_URL = the embedded database in DATA_DIR), on a free
 * port; resolves when it serves, with the key its first start printed (if any).
 */
function startServer(env) {
  // A budget no measurement reaches (the default is 1,000 requests a minute).
  const childEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '10000000', ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/server.js')], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const embedded = !env.DATABASE_URL;
  let stdout = '';
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 120 s:\n${stderr}`)), 120_000);
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${stderr}`)));
    const check = () => {
      const listening = /"msg":"listening on https:\/\/[^:]+:(\d+)/.exec(stdout);
      // On the embedded database the server is ready once it printed its banner (after the listen).
      if (!listening || (embedded && !(/Event service on/.test(stderr) && /\n\s*$/.test(stderr)))) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.stdout.removeAllListeners('data');
      child.stdout.resume();
      const exited = new Promise((done) => child.once('exit', done));
      resolve({
        child,
        port: Number(listening[1]),
        key: /\b(nk_test_[A-Za-z0-9]{32})\b/.exec(stderr)?.[1],
        memory: () => memoryOf(child.pid),
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    };
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      stdout += chunk;
      check();
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      stderr += chunk;
      check();
    });
  });
}

/** `node dist/doors/cli/admin.js …` (compiled; no build check) with `env`; its JSON answer. */
function admin(args, env) {
  const childEnv = { ...process.env, ...env };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const result = spawnSync(process.execPath, [path.join(ROOT, 'dist/doors/cli/admin.js'), ...args], { env: childEnv, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`admin ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** A database of its own on the local PostgreSQL (MEASURE_ADMIN_URL), or undefined when none answers. */
async function throwAwayDatabase(label) {
  const adminUrl = process.env.MEASURE_ADMIN_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
  const { Client } = require(require.resolve('pg', { paths: [ROOT] }));
  const name = `event_service_measure_${label}_${randomBytes(4).toString('hex')}`;
  const admin = async (sql) => {
    const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 3000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  try {
    await admin(`create database "${name}"`);
  } catch (error) {
    process.stderr.write(`no PostgreSQL at ${adminUrl} (${error.message}): PostgreSQL figures skipped\n`);
    return undefined;
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists "${name}" with (force)`) };
}

/** A keep-alive HTTPS client for the server's self-signed certificate. */
function client(port, ca, key, sockets = 16) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: sockets, ca });
  const request = (method, pathname, body) =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const req = https.request(
        {
          host: '127.0.0.1',
          servername: 'localhost',
          port,
          method,
          path: pathname,
          agent,
          headers: { authorization: `Bearer ${key}`, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}) },
        },
        (res) => {
          const chunks = [];
          res.on('data', (chunk) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
        },
      );
      req.once('error', reject);
      req.end(payload);
    });
  return { request, close: () => agent.destroy() };
}

module.exports = { ROOT, median, temporaryDirectory, memoryOf, startServer, admin, throwAwayDatabase, client };
