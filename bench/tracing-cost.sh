#!/usr/bin/env bash
# `npm run bench:tracing`: what tracing (D27) costs the server, in CPU per request. Compiled servers run
# side by side on one throw-away database of the local PostgreSQL (BENCH_ADMIN_URL): `off` without
# tracing, `on` with OTEL_EXPORTER_OTLP_ENDPOINT set (every trace sampled, the default protocol
# http/protobuf; TRACE_ENV adds variables to it), and, when ALT_ENV is set, `alt`: traced too, with
# those variables added (e.g. ALT_ENV='OTEL_EXPORTER_OTLP_PROTOCOL=http/json'). The traced servers
# export to a sink on loopback that answers 200 and counts the bytes it gets.
#
# wrk (CONNECTIONS, default 64) drives each kind:
#   get    GET /v1/events/hot (the cheapest request: request, operation and statement spans)
#   book   createBooking on /graphql (one seat of the same hot event, no capacity)
# Each round, per kind: a 2 s warm-up of every server, then SLICES slices of SLICE_SECONDS (default 4
# of 3 s) per server, in the order off on [alt], then backwards, and so on (ABBA: a load that drifts
# while the round runs weighs on every server alike). A server's CPU per request is its CPU (utime +
# stime of /proc/<pid>/stat) over its slices divided by the requests they answered. The machine may be
# shared: compare servers within a round, not rounds or runs. ROUNDS rounds (default 3); the summary
# gives the medians. NODE_OPTIONS_ON adds node options to `on` (e.g. '--cpu-prof --cpu-prof-dir=/tmp/p').
# STOCK=1 adds `stock`: the same server with its own tracing off and the stock OpenTelemetry Node
# instrumentations on instead, as `node --require @opentelemetry/auto-instrumentations-node/register`
# starts them (every default instrumentation, exporting to the same sink): the baseline docs/performance.md compares tracing with.
# They are not a dependency of the project: the first such run installs them (STOCK_VERSION, from the npm
# registry) into STOCK_DIR (default /tmp/event-service-stock-otel), outside the project.
set -euo pipefail
cd "$(dirname "$0")/.."
ADMIN_URL=${BENCH_ADMIN_URL:-postgresql://postgres@127.0.0.1:5432/postgres}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-64}
SLICES=${SLICES:-4}
SLICE_SECONDS=${SLICE_SECONDS:-3}
PORT_BASE=${BENCH_PORT:-9791}
SINK_PORT=$((PORT_BASE + 9))
IFS=',' read -r -a KINDS <<<"${KINDS:-get,book}"
SERVERS=(off on)
[ -n "${ALT_ENV:-}" ] && SERVERS+=(alt)
STOCK_DIR=${STOCK_DIR:-/tmp/event-service-stock-otel}
if [ -n "${STOCK:-}" ]; then
  SERVERS+=(stock)
  if [ ! -f "$STOCK_DIR/preload.cjs" ]; then
    echo "installing @opentelemetry/auto-instrumentations-node@${STOCK_VERSION:-0.82.0} into $STOCK_DIR (npm)"
    mkdir -p "$STOCK_DIR"
    echo '{"private": true}' >"$STOCK_DIR/package.json"
    npm install --prefix "$STOCK_DIR" --no-audit --no-fund --loglevel=error "@opentelemetry/auto-instrumentations-node@${STOCK_VERSION:-0.82.0}" >/dev/null
    # The stock SDK reads the endpoint when it starts; the service's own tracing then finds none and stays off.
    printf '%s\n' "require('@opentelemetry/auto-instrumentations-node/register');" 'delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;' >"$STOCK_DIR/preload.cjs"
  fi
fi
if ! command -v wrk >/dev/null; then echo "installing wrk (apt-get)"; apt-get install -y wrk >/dev/null; fi

DB=event_service_tracing_$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
DB_URL=${ADMIN_URL%/*}/$DB
WORK=$(mktemp -d)
SECRET=$(head -c 32 /dev/urandom | base64)
declare -A PID PORT
cleanup() {
  for pid in "${PID[@]}"; do kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true; done
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
    q.on("end", () => {
      exports += 1;
      fs.writeFileSync(process.argv[2] + ".tmp", exports + " " + bytes + "\n");
      fs.renameSync(process.argv[2] + ".tmp", process.argv[2]);
      const json = String(q.headers["content-type"]).startsWith("application/json");
      s.writeHead(200, { "content-type": json ? "application/json" : "application/x-protobuf" }).end(json ? "{}" : "");
    });
  }).listen(Number(process.argv[1]), "127.0.0.1");' "$SINK_PORT" "$WORK/sink" &
SINK=$!
echo "0 0" >"$WORK/sink"

serve() { # $1 = name, $2 = node options, then extra env
  local name=$1 options=$2; shift 2
  # shellcheck disable=SC2086
  exec env DATABASE_URL="$DB_URL" NODE_ENV=production PORT="${PORT[$name]}" HOST=127.0.0.1 DATA_DIR="$WORK/data-$name" SECRET_KEY="$SECRET" LOG_LEVEL=warn \
    RATE_LIMIT_PER_MINUTE=10000000 "$@" node $options dist/server.js >"$WORK/server-$name.log" 2>&1
}
TRACED="OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:$SINK_PORT"
for index in "${!SERVERS[@]}"; do
  name=${SERVERS[$index]}
  PORT[$name]=$((PORT_BASE + index))
  # shellcheck disable=SC2086
  case $name in
    off) serve off "" & ;;
    on) serve on "${NODE_OPTIONS_ON:-}" "$TRACED" ${TRACE_ENV:-} & ;;
    alt) serve alt "" "$TRACED" ${TRACE_ENV:-} ${ALT_ENV} & ;;
    # No cloud metadata lookups (the default detectors ask GCP's and others' metadata servers), no metrics or logs.
    stock) serve stock "--require=$STOCK_DIR/preload.cjs" "$TRACED" OTEL_NODE_RESOURCE_DETECTORS=env,host,os,process \
      OTEL_METRICS_EXPORTER=none OTEL_LOGS_EXPORTER=none & ;;
  esac
  PID[$name]=$!
  # One after the other: the first start migrates the database.
  for _ in $(seq 1 100); do curl -sk "https://127.0.0.1:${PORT[$name]}/healthz" >/dev/null && break; sleep 0.1; done
done

admin() { DATABASE_URL=$DB_URL DATA_DIR="$WORK/data-off" SECRET_KEY="$SECRET" node dist/doors/cli/admin.js "$@"; }
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }
ORG=$(admin org create --name "Tracing cost" | json id)
KEY=$(admin key create --org "$ORG" --name bench --permissions events:read,events:write,bookings:read,bookings:write | json key)
URL="https://127.0.0.1:${PORT[off]}"
curl -sfk -o /dev/null -H "Authorization: Bearer $KEY" -H 'content-type: application/json' \
  -d '{"title":"Hot","slug":"hot","capacity":null,"startDate":"2030-03-01T18:00:00Z","endDate":"2030-03-01T23:00:00Z"}' "$URL/v1/events"
curl -sfk -o /dev/null -X PUT -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"status":"PUBLISHED"}' "$URL/v1/events/hot"

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
sink_bytes() { local bytes; read -r _ bytes <"$WORK/sink" || true; echo "${bytes:-0}"; }
drive() { # $1 = kind, $2 = server, $3 = seconds: prints the requests answered (fails on a non-2xx answer)
  wrk -t1 -c"$CONNECTIONS" -d"$3s" -s "$WORK/$1.lua" -H "Authorization: Bearer $KEY" "https://127.0.0.1:${PORT[$2]}" >"$WORK/wrk.out"
  awk '/Non-2xx/ { bad = $NF } / requests in / { n = $1 } END { if (bad) { print "non-2xx answers: " bad > "/dev/stderr"; exit 1 } print n }' "$WORK/wrk.out"
}
declare -A CPUS
HZ=$(getconf CLK_TCK)
for round in $(seq 1 "$ROUNDS"); do
  line="round $round:"
  for k in "${!KINDS[@]}"; do
    kind=${KINDS[$(((k + round - 1) % ${#KINDS[@]}))]}
    declare -A TICKS=() COUNT=() BYTES=()
    for name in "${SERVERS[@]}"; do drive "$kind" "$name" 2 >/dev/null; TICKS[$name]=0 COUNT[$name]=0 BYTES[$name]=0; done
    order=("${SERVERS[@]}")
    for slice in $(seq 1 "$SLICES"); do
      for name in "${order[@]}"; do
        before=$(cpu_ticks "${PID[$name]}") sent=$(sink_bytes)
        n=$(drive "$kind" "$name" "$SLICE_SECONDS")
        # What the last export of the slice sends lands in the next slice's count: bytes are approximate.
        TICKS[$name]=$((TICKS[$name] + $(cpu_ticks "${PID[$name]}") - before)) COUNT[$name]=$((COUNT[$name] + n)) BYTES[$name]=$((BYTES[$name] + $(sink_bytes) - sent))
      done
      mapfile -t order < <(printf '%s\n' "${order[@]}" | tac)
    done
    line="$line | $kind"
    for name in "${SERVERS[@]}"; do
      cpu=$(awk -v t="${TICKS[$name]}" -v n="${COUNT[$name]}" -v hz="$HZ" 'BEGIN { printf "%.0f", t / hz * 1e6 / n }')
      CPUS[$kind $name]="${CPUS[$kind $name]:-} $cpu"
      line="$line $name $((COUNT[$name] / (SLICES * SLICE_SECONDS)))/s ${cpu} us"
      [ "$name" != off ] && line="$line ($((BYTES[$name] / COUNT[$name])) B/req)"
    done
  done
  echo "$line"
done
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
summary="medians of server CPU per request:"
for kind in "${KINDS[@]}"; do
  # shellcheck disable=SC2086
  off=$(median ${CPUS[$kind off]})
  summary="$summary $kind off ${off} us"
  for name in "${SERVERS[@]:1}"; do
    # shellcheck disable=SC2086
    cpu=$(median ${CPUS[$kind $name]})
    summary="$summary, $name ${cpu} us ($(awk -v a="$cpu" -v b="$off" 'BEGIN { printf "%+.0f%%", (a / b - 1) * 100 }'))"
  done
  summary="$summary;"
done
read -r exports bytes <"$WORK/sink" || true
echo "$summary (${CONNECTIONS} connections, ${SLICES} slices of ${SLICE_SECONDS} s per server; ${exports} exports, $((bytes / 1000000)) MB in all)"
# Warnings and errors of the servers (an export that failed, spans dropped on a full queue), but the certificate's.
for name in "${SERVERS[@]}"; do
  grep '"level":[456]0' "$WORK/server-$name.log" | grep -v TLS_CERT_FILE | sed "s/^/$name: /" | head -5 || true
done
