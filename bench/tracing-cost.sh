#!/usr/bin/env bash
# `npm run bench:tracing`: what tracing (D27) costs the server, in CPU per request. Two compiled
# servers run side by side on one throw-away database of the local PostgreSQL (BENCH_ADMIN_URL): one
# with tracing off, one with OTEL_EXPORTER_OTLP_ENDPOINT set (every trace sampled, the default
# protocol http/protobuf unless TRACE_ENV says otherwise) exporting to a sink on loopback that
# answers 200 and counts what it gets. wrk (CONNECTIONS, default 64) drives, in turn and for
# SECONDS_EACH (default 6) after a 2 s warm-up, each kind on each server:
#   get    GET /v1/events/hot (the cheapest request: request, operation and statement spans)
#   book   createBooking on /graphql (one seat of the same hot event, no capacity)
# ROUNDS rounds (default 3), the order rotating. Each line gives a kind's rate and the server's CPU
# (utime + stime from /proc/<pid>/stat) per request: compare CPU within a round, the machine may be
# shared. The summary gives each kind's median CPU off and on, and the exported bytes per request.
# TRACE_ENV adds variables to the traced server only (e.g. TRACE_ENV='OTEL_EXPORTER_OTLP_PROTOCOL=http/json');
# NODE_OPTIONS_ON adds node options to it (e.g. '--cpu-prof --cpu-prof-dir=/tmp/prof').
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${BENCH_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
SECONDS_EACH=${SECONDS_EACH:-6}
PORT_OFF=${BENCH_PORT:-9791}
PORT_ON=$((PORT_OFF + 1))
SINK_PORT=$((PORT_OFF + 2))
IFS=',' read -r -a KINDS <<<"${KINDS:-get,book}"
if ! command -v wrk >/dev/null; then echo "installing wrk (apt-get)"; apt-get install -y wrk >/dev/null; fi

DB=event_service_tracing_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DB_URL=${ADMIN_URL%/*}/$DB
WORK=$(mktemp -d)
SECRET=$(head -c 32 /dev/urandom | base64)
cleanup() {
  for pid in "${SERVER_OFF:-}" "${SERVER_ON:-}"; do [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
  [ -n "${SINK:-}" ] && kill "$SINK" 2>/dev/null || true
  psql "$ADMIN_URL" -qc "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
  [ -n "${KEEP_WORK:-}" ] && cat "$WORK"/server-*.log >&2
  rm -rf "$WORK"
}
trap cleanup EXIT
psql "$ADMIN_URL" -qc "create database $DB" >/dev/null

# The OTLP sink: answers 200 (an empty ExportTraceServiceResponse), counts exports and bytes in $WORK/sink.
node -e '
  const fs = require("node:fs"); let exports = 0, bytes = 0;
  require("node:http").createServer((q, s) => {
    q.on("data", (d) => { bytes += d.length; });
    q.on("end", () => { exports += 1; fs.writeFileSync(process.argv[2] + ".tmp", exports + " " + bytes + "\n"); fs.renameSync(process.argv[2] + ".tmp", process.argv[2]); s.writeHead(200, { "content-type": String(q.headers["content-type"] || "application/x-protobuf") }).end(String(q.headers["content-type"]).startsWith("application/json") ? "{}" : ""); });
  }).listen(Number(process.argv[1]), "127.0.0.1");' "$SINK_PORT" "$WORK/sink" &
SINK=$!
echo "0 0" >"$WORK/sink"

serve() { # $1 = port, $2 = name, $3 = node options, then extra env
  local port=$1 name=$2 options=$3; shift 3
  # shellcheck disable=SC2086
  exec env DATABASE_URL="$DB_URL" NODE_ENV=production PORT="$port" HOST=127.0.0.1 DATA_DIR="$WORK/data-$name" SECRET_KEY="$SECRET" LOG_LEVEL=warn \
    RATE_LIMIT_PER_MINUTE=10000000 "$@" node $options dist/server.js >"$WORK/server-$name.log" 2>&1
}
serve "$PORT_OFF" off "" &
SERVER_OFF=$!
for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:$PORT_OFF/healthz" >/dev/null && break; sleep 0.1; done
# shellcheck disable=SC2086
serve "$PORT_ON" on "${NODE_OPTIONS_ON:-}" OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:$SINK_PORT" ${TRACE_ENV:-} &
SERVER_ON=$!
for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:$PORT_ON/healthz" >/dev/null && break; sleep 0.1; done

admin() { DATABASE_URL=$DB_URL DATA_DIR="$WORK/data-off" SECRET_KEY="$SECRET" node dist/doors/cli/admin.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }
ORG=$(admin org create --name "Tracing cost" | json id)
KEY=$(admin key create --org "$ORG" --name bench --permissions events:read,events:write,bookings:read,bookings:write | json key)
curl -sfk -o /dev/null -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"title":"Hot","slug":"hot","capacity":null,"startDate":"2030-03-01T18:00:00Z","endDate":"2030-03-01T23:00:00Z"}' "https://127.0.0.1:$PORT_OFF/v1/events"
curl -sfk -o /dev/null -X PUT -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"status":"PUBLISHED"}' "https://127.0.0.1:$PORT_OFF/v1/events/hot"

cat >"$WORK/get.lua" <<'LUA'
wrk.method = "GET"
wrk.path = "/v1/events/hot"
LUA
cat >"$WORK/book.lua" <<'LUA'
wrk.method = "POST"
wrk.path = "/graphql"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"query":"mutation($input: CreateBookingInput!) { createBooking(input: $input) { id status } }","variables":{"input":{"eventSlug":"hot","quantity":1,"attendeeEmail":"a@example.com","attendeeName":"A"}}}'
LUA

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
measure() { # $1 = kind, $2 = off|on: prints rate, CPU us per request, exported bytes per request
  local pid port
  if [ "$2" = on ]; then pid=$SERVER_ON port=$PORT_ON; else pid=$SERVER_OFF port=$PORT_OFF; fi
  wrk -t1 -c"$CONNECTIONS" -d2s -s "$WORK/$1.lua" -H "Authorization: Bearer $KEY" "https://127.0.0.1:$port" >/dev/null
  sleep 0.3
  local before after sink_before sink_after
  before=$(cpu_ticks "$pid")
  read -r _ sink_before <"$WORK/sink" || true
  wrk -t1 -c"$CONNECTIONS" -d"${SECONDS_EACH}s" -s "$WORK/$1.lua" -H "Authorization: Bearer $KEY" "https://127.0.0.1:$port" >"$WORK/wrk.out"
  after=$(cpu_ticks "$pid")
  read -r _ sink_after <"$WORK/sink" || true
  awk -v ticks=$((after - before)) -v hz="$(getconf CLK_TCK)" -v bytes=$((sink_after - sink_before)) \
    '/Non-2xx/ { bad = $NF } / requests in / { n = $1 } /Requests\/sec/ { rate = $2 }
    END { if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 } printf "%.0f %.0f %.0f\n", rate, ticks / hz * 1e6 / n, bytes / n }' "$WORK/wrk.out"
}
declare -A CPUS
RUNS=()
for kind in "${KINDS[@]}"; do RUNS+=("$kind off" "$kind on"); done
for round in $(seq 1 "$ROUNDS"); do
  line="round $round:"
  for index in "${!RUNS[@]}"; do
    run=${RUNS[$(((index + round - 1) % ${#RUNS[@]}))]}
    # shellcheck disable=SC2086
    read -r rate cpu bytes <<<"$(measure $run)"
    CPUS[$run]="${CPUS[$run]:-} $cpu"
    line="$line | $run ${rate}/s ${cpu} us"
    if [ "${run#* }" = on ]; then line="$line (${bytes} B exported/req)"; fi
  done
  echo "$line"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
summary="medians of server CPU per request:"
for kind in "${KINDS[@]}"; do
  # shellcheck disable=SC2086
  off=$(median ${CPUS[$kind off]})
  # shellcheck disable=SC2086
  on=$(median ${CPUS[$kind on]})
  summary="$summary $kind off ${off} us, on ${on} us ($(awk -v a="$on" -v b="$off" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }'));"
done
read -r exports bytes <"$WORK/sink" || true
echo "$summary (${CONNECTIONS} connections, ${SECONDS_EACH} s each; ${exports} exports, $((bytes / 1000000)) MB in all)"
grep -h '"level":[456]0' "$WORK"/server-*.log | grep -v TLS_CERT_FILE | head -5 || true
