#!/usr/bin/env bash
# `npm run bench:bookings`: bookings of one hot published event (64 connections, one seat each, as the
# shared benchmark's target-book) in three kinds, driven by wrk:
#   plain     no Idempotency-Key, no webhook endpoint
#   keyed     every request with an Idempotency-Key of its own (target in docs/performance.md: >= 0.75x plain)
#   webhooks  an organization with an endpoint subscribed to booking.created, delivered to a local
#             receiver that answers 204 (target in docs/performance.md: >= 0.8x plain)
#   hold-confirm  the checkout flow (D20): a hold, then its confirmation; its rate counts requests,
#             two per confirmed booking (`npm run bench:holds` is MODES=plain,hold-confirm)
# The compiled server runs on a throw-away database of the local PostgreSQL (BENCH_ADMIN_URL); the
# organizations and keys are made with the admin CLI. ROUNDS rounds (default 3), the kinds' order
# rotating; prints each round and every kind's median against plain. MODES picks kinds
# (`npm run bench:keyed` is MODES=plain,keyed). CAPACITY (default none) sizes the event: events of
# 500 seats or more, and those without a capacity, use inventory slots.
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${BENCH_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
SECONDS_EACH=${SECONDS_EACH:-10}
PORT=${BENCH_PORT:-9787}
RECEIVER_PORT=${BENCH_RECEIVER_PORT:-9788}
IFS=',' read -r -a MODES <<<"${MODES:-plain,keyed,webhooks}"
CAPACITY=${CAPACITY:-null}
if ! command -v wrk >/dev/null; then echo "installing wrk (apt-get)"; apt-get install -y wrk >/dev/null; fi

DB=event_service_bookings_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DB_URL=${ADMIN_URL%/*}/$DB
WORK=$(mktemp -d)
cleanup() {
  [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null && wait "$SERVER" 2>/dev/null || true
  [ -n "${RECEIVER:-}" ] && kill "$RECEIVER" 2>/dev/null || true
  psql "$ADMIN_URL" -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  [ -n "${KEEP_WORK:-}" ] && cat "$WORK/server.log" >&2; rm -rf "$WORK"
}
trap cleanup EXIT
psql "$ADMIN_URL" -qc "create database $DB" >/dev/null

# The server's DATA_DIR: the CLI reads the server secret there (D24).
admin() { DATABASE_URL=$DB_URL DATA_DIR="$WORK/data" node dist/doors/cli/admin.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

node -e 'require("node:http").createServer((q, s) => { q.resume(); q.on("end", () => s.writeHead(204).end()); }).listen(Number(process.argv[1]), "127.0.0.1")' "$RECEIVER_PORT" &
RECEIVER=$!
env DATABASE_URL="$DB_URL" NODE_ENV=production PORT=$PORT HOST=127.0.0.1 DATA_DIR="$WORK/data" LOG_LEVEL=warn RATE_LIMIT_PER_MINUTE=10000000 \
  WEBHOOK_ALLOW_PRIVATE_NETWORKS=true ${SERVER_ENV:-} node ${NODE_OPTIONS_SERVER:-} dist/server.js >"$WORK/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
URL="https://127.0.0.1:$PORT"

# An organization, its key and its hot event (published); with $1 = webhooks, an endpoint wanting booking.created.
tenant() {
  local org key
  org=$(admin org create --name "Hot bookings $1" | json id)
  key=$(admin key create --org "$org" --name bench --permissions events:read,events:write,bookings:read,bookings:write,webhooks:write | json key)
  curl -sfk -o /dev/null -H "Authorization: Bearer $key" -H 'content-type: application/json' \
    -d "{\"title\":\"Hot\",\"slug\":\"hot\",\"capacity\":$CAPACITY,\"startDate\":\"2030-03-01T18:00:00Z\",\"endDate\":\"2030-03-01T23:00:00Z\"}" "$URL/v1/events"
  curl -sfk -o /dev/null -X PUT -H "Authorization: Bearer $key" -H 'content-type: application/json' -d '{"status":"PUBLISHED"}' "$URL/v1/events/hot"
  if [ "$1" = webhooks ]; then
    curl -sfk -o /dev/null -H "Authorization: Bearer $key" -H 'content-type: application/json' \
      -d "{\"query\":\"mutation(\$i: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: \$i) { endpoint { id } } }\",\"variables\":{\"i\":{\"url\":\"http://127.0.0.1:$RECEIVER_PORT/hook\",\"eventTypes\":[\"booking.created\"]}}}" "$URL/graphql"
  fi
  echo "$key"
}
declare -A KEYS
for mode in "${MODES[@]}"; do KEYS[$mode]=$(tenant "$mode"); done

cat >"$WORK/book.lua" <<'LUA'
counter = 0
local keyed = os.getenv("KEYED") == "1"
-- HOLD=1: the checkout flow (D20): each buyer holds a seat, then confirms it; a request is a hold or
-- the confirmation of a hold answered earlier (two requests a booking).
local hold = os.getenv("HOLD") == "1"
local run = os.getenv("RUN")
local body = '{"query":"mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status } }","variables":{"input":{"eventSlug":"hot","quantity":1,"attendeeEmail":"a@example.com","attendeeName":"A"' .. (hold and ',"hold":true' or '') .. '}}}'
local held = {}
request = function()
  counter = counter + 1
  local headers = { ["Content-Type"] = "application/json", ["Authorization"] = wrk.headers["Authorization"] }
  if keyed then headers["Idempotency-Key"] = "bench-" .. run .. "-" .. counter end
  local id = table.remove(held)
  if id then
    return wrk.format("POST", "/graphql", headers, '{"query":"mutation($id: ID!) { confirmBooking(id: $id) { id status } }","variables":{"id":"' .. id .. '"}}')
  end
  return wrk.format("POST", "/graphql", headers, body)
end
if hold then
  response = function(status, headers, body)
    local id = body:match('"createBooking":{"id":"([^"]+)"')
    if id then table.insert(held, id) end
  end
end
LUA
# The server's CPU time so far (user + system, clock ticks): CPU per booking does not depend on what
# else the machine runs, where the rate does.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$SERVER/stat"; }
rate() { # $1 = mode: bookings per second over SECONDS_EACH, after a 3 s warm-up
  local keyed=0 hold=0; [ "$1" = keyed ] && keyed=1; [ "$1" = hold-confirm ] && hold=1
  RUN="$round-$1-warm" KEYED=$keyed HOLD=$hold wrk -t1 -c"$CONNECTIONS" -d3s -s "$WORK/book.lua" -H "Authorization: Bearer ${KEYS[$1]}" "$URL" >/dev/null
  local before after
  before=$(cpu_ticks)
  RUN="$round-$1" KEYED=$keyed HOLD=$hold wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" --latency -s "$WORK/book.lua" -H "Authorization: Bearer ${KEYS[$1]}" "$URL" >"$WORK/wrk.out"
  after=$(cpu_ticks)
  awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" '/Non-2xx/ { bad = $NF } / requests in / { n = $1 } /Requests\/sec/ { rate = $2 } /^ +99%/ { p99 = $2 }
    END { if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 } printf "%s %s %.0f\n", rate, p99, ticks / hz * 1e6 / n }' "$WORK/wrk.out"
}
declare -A RATES CPUS
for round in $(seq 1 "$ROUNDS"); do
  line="round $round:"
  for index in "${!MODES[@]}"; do
    mode=${MODES[$(((index + round - 1) % ${#MODES[@]}))]}
    read -r r p99 cpu <<<"$(rate "$mode")"
    RATES[$mode]="${RATES[$mode]:-} $r"
    CPUS[$mode]="${CPUS[$mode]:-} $cpu"
    line="$line $mode $r/s (p99 $p99, server CPU ${cpu} us/booking)"
  done
  echo "$line"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
# shellcheck disable=SC2086
base=$(median ${RATES[${MODES[0]}]})
summary="medians:"
for mode in "${MODES[@]}"; do
  # shellcheck disable=SC2086
  m=$(median ${RATES[$mode]})
  # shellcheck disable=SC2086
  summary="$summary $mode $m/s ($(awk -v m="$m" -v b="$base" 'BEGIN { printf "%.2f", m / b }')x, $(median ${CPUS[$mode]}) us CPU)"
done
echo "$summary (${CONNECTIONS} connections, ${SECONDS_EACH} s each, capacity $CAPACITY)"
# Every booking counted once: the stored counts of each event against the bookings made.
for mode in "${MODES[@]}"; do
  curl -sfk -H "Authorization: Bearer ${KEYS[$mode]}" "$URL/v1/events/hot" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const e=JSON.parse(s);console.log(process.argv[1]+": registrationCount "+e.registrationCount)})' "$mode"
done
