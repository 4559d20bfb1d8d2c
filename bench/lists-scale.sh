#!/usr/bin/env bash
# `npm run bench:lists` (D25): does a list page cost the same among 1,000,000 events as among 1,000?
# One throw-away database of the local PostgreSQL (BENCH_ADMIN_URL), the compiled server, two
# organizations made with the admin CLI: `big` with BIG events (default 1,000,000) and `small` with
# 1,000, each event with one ticket type, loaded with SQL (insert … select generate_series; the
# event_counts triggers count them in the same statements), then VACUUM ANALYZE. Measures:
#   - GET /v1/events?limit=20 at CONNECTIONS (32) connections, wrk, ROUNDS rounds alternating small/big
#   - page 50,000 (limit 20) alone: median of 7 requests, one at a time; the middle page (the worst), median of 3
#   - the 1,000th cursor page alone: walks 1,000 pages with nextCursor, then times that page (median of 7)
# The machine may be shared: the figures are what this run measured, nothing more. KEEP_DB=1 keeps the
# database (its URL printed at the end), e.g. to EXPLAIN the list's statements on it.
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${BENCH_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-32}
SECONDS_EACH=${SECONDS_EACH:-10}
BIG=${BIG:-1000000}
PORT=${BENCH_PORT:-9791}
if ! command -v wrk >/dev/null; then echo "installing wrk (apt-get)"; apt-get install -y wrk >/dev/null; fi

DB=event_service_lists_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DB_URL=${ADMIN_URL%/*}/$DB
WORK=$(mktemp -d)
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  if [ -n "${KEEP_DB:-}" ]; then echo "kept database: $DB_URL" >&2; else psql "$ADMIN_URL" -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true; fi
  [ -n "${KEEP_WORK:-}" ] && cat "$WORK/server.log" >&2; rm -rf "$WORK"
}
trap cleanup EXIT
psql "$ADMIN_URL" -qc "create database $DB" >/dev/null

admin() { DATABASE_URL=$DB_URL DATA_DIR="$WORK/data" node dist/doors/cli/admin.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

env DATABASE_URL="$DB_URL" NODE_ENV=production PORT=$PORT HOST=127.0.0.1 DATA_DIR="$WORK/data" LOG_LEVEL=warn RATE_LIMIT_PER_MINUTE=10000000 \
  ${SERVER_ENV:-} node dist/server.js >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
URL="https://127.0.0.1:$PORT"

declare -A KEYS ORGS
for name in small big; do
  ORGS[$name]=$(admin org create --name "Lists $name" | json id)
  KEYS[$name]=$(admin key create --org "${ORGS[$name]}" --name bench --permissions events:read | json key)
done

load() { # $1 organization, $2 how many, $3 id prefix
  psql "$DB_URL" -q -v ON_ERROR_STOP=1 <<SQL
insert into events (id, organization_id, slug, title, start_date, end_date, timezone, status, created_at, updated_at)
  select '$3' || g, '$1', '$3-' || g, 'Event ' || g,
    timestamptz '2030-01-01' + g * interval '1 minute', timestamptz '2030-01-01' + g * interval '1 minute' + interval '2 hours',
    'UTC', case when g % 10 = 0 then 'DRAFT' else 'PUBLISHED' end, timestamptz '2026-01-01' + g * interval '10 ms', now()
  from generate_series(1, $2) g;
insert into ticket_types (id, organization_id, event_id, name, price, currency, quantity, created_at)
  select 'tt_$3' || g, '$1', '$3' || g, 'General', 10, 'EUR', 100, now() from generate_series(1, $2) g;
SQL
}
started=$(date +%s)
load "${ORGS[small]}" 1000 evtsmall
load "${ORGS[big]}" "$BIG" evtbig
psql "$DB_URL" -qc 'vacuum analyze events' -c 'vacuum analyze ticket_types' -c 'vacuum analyze event_counts'
echo "loaded $BIG + 1000 events (with a ticket type each) in $(($(date +%s) - started)) s"
for name in small big; do
  total=$(curl -sfk -H "Authorization: Bearer ${KEYS[$name]}" "$URL/v1/events?limit=1" | json total)
  echo "$name: total $total"
done

median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
declare -A RATES
for round in $(seq 1 "$ROUNDS"); do
  for name in small big; do
    wrk -t1 -c"$CONNECTIONS" -d2s -H "Authorization: Bearer ${KEYS[$name]}" "$URL/v1/events?limit=20" >/dev/null
    wrk -t2 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -H "Authorization: Bearer ${KEYS[$name]}" "$URL/v1/events?limit=20" >"$WORK/wrk.out"
    rate=$(awk '/Requests\/sec/ { print $2 }' "$WORK/wrk.out")
    p50=$(awk '/ 50%/ { print $2 }' "$WORK/wrk.out")
    non2xx=$(awk '/Non-2xx/ { print $5 }' "$WORK/wrk.out")
    RATES[$name]="${RATES[$name]:-} $rate"
    echo "round $round $name: $rate req/s, p50 $p50${non2xx:+, non-2xx $non2xx}"
  done
done
small=$(median ${RATES[small]})
big=$(median ${RATES[big]})
echo "list limit=20 at $CONNECTIONS connections, medians: small $small req/s, big $big req/s ($(awk -v a="$big" -v b="$small" 'BEGIN { printf "%.2f", a / b }')x)"

# One request at a time: the page 50,000 and the 1,000th cursor page, timed by the client (ms).
node - "$URL" "${KEYS[big]}" <<'JS'
const https = require('node:https');
const [url, key] = process.argv.slice(2);
const agent = new https.Agent({ keepAlive: true, maxSockets: 1 });
const get = (path) => new Promise((resolve, reject) => {
  const started = process.hrtime.bigint();
  https.get(`${url}${path}`, { agent, rejectUnauthorized: false, headers: { authorization: `Bearer ${key}` } }, (res) => {
    let body = '';
    res.on('data', (d) => (body += d)).on('end', () => {
      if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode} ${body}`));
      resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body: JSON.parse(body) });
    });
  }).on('error', reject);
});
const median = (values) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)];
const timed = async (path, times = 7) => {
  const ms = [];
  for (let i = 0; i < times; i += 1) ms.push((await get(path)).ms);
  return median(ms).toFixed(1);
};
(async () => {
  console.log(`page 1 (limit 20) alone: median ${await timed('/v1/events?limit=20')} ms`);
  const deep = await get('/v1/events?limit=20&page=50000');
  console.log(`page 50,000 (limit 20): ${deep.body.events.length} events; median ${await timed('/v1/events?limit=20&page=50000')} ms`);
  // The worst page number: the middle of the list (half the index entries skipped, from either end).
  const middle = Math.floor(deep.body.total / 40);
  console.log(`page ${middle.toLocaleString('en')} (the middle, limit 20): median ${await timed(`/v1/events?limit=20&page=${middle}`, 3)} ms`);
  let after = null;
  const walkStarted = Date.now();
  for (let page = 1; page < 1000; page += 1) {
    after = (await get(`/v1/events?limit=20${after ? `&after=${after}` : ''}`)).body.nextCursor;
  }
  const walked = Date.now() - walkStarted;
  const thousandth = await get(`/v1/events?limit=20&after=${after}`);
  console.log(`1,000th cursor page (limit 20): ${thousandth.body.events.length} events, first ${thousandth.body.events[0].slug}; ` +
    `median ${await timed(`/v1/events?limit=20&after=${after}`)} ms (the walk of 999 pages took ${walked} ms)`);
  agent.destroy();
})().catch((error) => { console.error(error); process.exit(1); });
JS
