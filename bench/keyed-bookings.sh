#!/usr/bin/env bash
# `npm run bench:keyed`: bookings of one published event with and without an Idempotency-Key (issue 24:
# a retry-safe booking is as fast as one without), driven by wrk as the shared benchmark drives the
# service. The compiled server runs on a throw-away database of the local PostgreSQL (BENCH_ADMIN_URL);
# the organization and key are made with the admin CLI. ROUNDS rounds (default 3), alternating which
# kind goes first; prints each round and the ratio of the medians. Every keyed request has a key of
# its own (no replays), so both kinds book.
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${BENCH_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-16}
SECONDS_EACH=${SECONDS_EACH:-10}
PORT=${BENCH_PORT:-9787}
if ! command -v wrk >/dev/null; then echo "installing wrk (apt-get)"; apt-get install -y wrk >/dev/null; fi

DB=event_service_keyed_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DB_URL=${ADMIN_URL%/*}/$DB
WORK=$(mktemp -d)
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  psql "$ADMIN_URL" -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
psql "$ADMIN_URL" -qc "create database $DB" >/dev/null

admin() { DATABASE_URL=$DB_URL node dist/doors/cli/admin.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

env DATABASE_URL="$DB_URL" NODE_ENV=production PORT=$PORT HOST=127.0.0.1 DATA_DIR="$WORK/data" LOG_LEVEL=warn RATE_LIMIT_PER_MINUTE=10000000 \
  node dist/server.js >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
ORG=$(admin org create --name "Keyed bookings" | json id)
KEY=$(admin key create --org "$ORG" --name bench --permissions events:read,events:write,bookings:read,bookings:write | json key)
URL="https://127.0.0.1:$PORT"
curl -sfk -o /dev/null -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"title":"Hot","slug":"hot","startDate":"2030-03-01T18:00:00Z","endDate":"2030-03-01T23:00:00Z"}' "$URL/v1/events"
curl -sfk -o /dev/null -X PUT -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"status":"PUBLISHED"}' "$URL/v1/events/hot"

cat >"$WORK/book.lua" <<'LUA'
counter = 0
local keyed = os.getenv("KEYED") == "1"
local run = os.getenv("RUN")
local body = '{"query":"mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status } }","variables":{"input":{"eventSlug":"hot","quantity":1,"attendeeEmail":"a@example.com","attendeeName":"A"}}}'
request = function()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = wrk.headers["Authorization"] }
  if keyed then headers["Idempotency-Key"] = "bench-" .. run .. "-" .. counter end
  return wrk.format("POST", "/graphql", headers, body)
end
LUA
rate() { # $1 = 0|1 (keyed): bookings per second over SECONDS_EACH, after a 3 s warm-up
  RUN="$round-$1-warm" KEYED=$1 wrk -t1 -c"$CONNECTIONS" -d3s -s "$WORK/book.lua" -H "Authorization: Bearer $KEY" "$URL" >/dev/null
  RUN="$round-$1" KEYED=$1 wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" -s "$WORK/book.lua" -H "Authorization: Bearer $KEY" "$URL" | awk '/Non-2xx/ { bad = $NF } /Requests\/sec/ { rate = $2 } END { if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 } print rate }'
}
plain=(); keyed=()
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then p=$(rate 0); k=$(rate 1); else k=$(rate 1); p=$(rate 0); fi
  plain+=("$p"); keyed+=("$k")
  echo "round $round: without a key $p/s, with a key $k/s"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
mp=$(median "${plain[@]}"); mk=$(median "${keyed[@]}")
echo "medians: without a key $mp/s, with a key $mk/s: $(awk -v k="$mk" -v p="$mp" 'BEGIN { printf "%.2f", k / p }')x (${CONNECTIONS} connections, ${SECONDS_EACH} s each)"
