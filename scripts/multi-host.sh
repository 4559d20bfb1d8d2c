#!/usr/bin/env bash
# Several machines on one host: what a multi-machine deployment looks like, proven under load.
#
#   PostgreSQL primary + streaming replica (pg_basebackup -R), both on loopback ports of their own;
#   Redis (the machine's, REDIS_URL); INSTANCES service instances (node dist/server.js, one secret,
#   one certificate, DATABASE_READ_URL on the replica); Debian's HAProxy in front (deploy/haproxy.cfg,
#   health checks on /readyz). scripts/multi-host/driver.js drives a mixed load through HAProxy,
#   SIGKILLs one instance mid-load, pauses the replica's replay for a while, then checks that nothing
#   acknowledged was lost, counts are exact, nothing is oversold and no writer read stale data.
#
#   bash scripts/multi-host.sh            # about a minute; exit 0 = every check passed
#
# Settings: INSTANCES (3), DURATION_S (40), WORKERS_PER_TENANT (4), TENANTS_COUNT (3), KILL_AT_S (10),
# PAUSE_AT_S (16), PAUSE_FOR_S (12), READ_REPLICA_MAX_WAIT_MS (250), REDIS_URL, PG_BIN, KEEP_WORK=1
# (keep the logs and data directories under /tmp/multi-host-*). Installs haproxy with apt-get when
# missing (as root). Documented in docs/operating.md, "Several machines on one host".
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
INSTANCES=${INSTANCES:-3}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
REDIS_URL=${REDIS_URL:-redis://127.0.0.1:6379}
WORK=$(mktemp -d /tmp/multi-host-XXXXXX)
chmod 755 "$WORK"
PIDS=()
HAPROXY_PID=
log() { printf 'multi-host: %s\n' "$*" >&2; }

as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

free_port() {
  node -e "const s=require('net').createServer();s.listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}

cleanup() {
  local code=$?
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  [ -n "$HAPROXY_PID" ] && kill "$HAPROXY_PID" 2>/dev/null || true
  for dir in replica primary; do
    [ -d "$WORK/$dir" ] && as_postgres "$PG_BIN/pg_ctl" -D "$WORK/$dir" -m immediate -w stop >/dev/null 2>&1 || true
  done
  if [ "${KEEP_WORK:-0}" = 1 ] || [ "$code" != 0 ]; then log "logs and data kept in $WORK"; else rm -rf "$WORK"; fi
  exit "$code"
}
trap cleanup EXIT

if ! command -v haproxy >/dev/null; then
  [ "$(id -u)" = 0 ] || { log 'haproxy is missing: apt-get install -y haproxy'; exit 1; }
  log 'installing haproxy (apt-get install -y haproxy)'
  apt-get install -y haproxy >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y haproxy >/dev/null; }
fi
node scripts/build.js --if-stale >/dev/null

# PostgreSQL: a primary, then a streaming replica made from it (pg_basebackup -R writes its standby settings).
PRIMARY_PORT=$(free_port)
REPLICA_PORT=$(free_port)
mkdir -p "$WORK/socket" && chmod 777 "$WORK/socket"
if [ "$(id -u)" = 0 ]; then chown postgres "$WORK"; fi
as_postgres "$PG_BIN/initdb" -D "$WORK/primary" -U postgres --auth=trust -E UTF8 --locale=C >/dev/null
as_postgres "$PG_BIN/pg_ctl" -D "$WORK/primary" -l "$WORK/primary.log" -w start \
  -o "-p $PRIMARY_PORT -c listen_addresses=127.0.0.1 -k $WORK/socket -c wal_level=replica -c max_wal_senders=4 -c max_connections=200" >/dev/null
as_postgres "$PG_BIN/pg_basebackup" -h 127.0.0.1 -p "$PRIMARY_PORT" -U postgres -D "$WORK/replica" -R -X stream
as_postgres "$PG_BIN/pg_ctl" -D "$WORK/replica" -l "$WORK/replica.log" -w start \
  -o "-p $REPLICA_PORT -c listen_addresses=127.0.0.1 -k $WORK/socket -c hot_standby=on -c max_connections=200" >/dev/null
log "primary on 127.0.0.1:$PRIMARY_PORT, replica on 127.0.0.1:$REPLICA_PORT"

# One certificate for every instance (HAProxy passes TLS through), one server secret (D24).
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
  -keyout "$WORK/tls.key" -out "$WORK/tls.crt" >/dev/null 2>&1
export DATABASE_URL="postgresql://postgres@127.0.0.1:$PRIMARY_PORT/events"
export DATABASE_READ_URL="postgresql://postgres@127.0.0.1:$REPLICA_PORT/events"
export SECRET_KEY REDIS_URL
SECRET_KEY=$(openssl rand -base64 32)
export REDIS_KEY_PREFIX="multi-host-$(basename "$WORK")"
export TLS_CERT_FILE="$WORK/tls.crt" TLS_KEY_FILE="$WORK/tls.key"
export RATE_LIMIT_PER_MINUTE=10000000 LOG_LEVEL=${LOG_LEVEL:-warn} READ_REPLICA_MAX_WAIT_MS=${READ_REPLICA_MAX_WAIT_MS:-250}
export NODE_ENV=production HOST=127.0.0.1

wait_ready() {
  for _ in $(seq 1 150); do
    curl -sk --max-time 1 "https://127.0.0.1:$1/readyz" 2>/dev/null | grep -q '"readReplica":"up"' && return 0
    sleep 0.2
  done
  log "instance on port $1 never became ready (log: $WORK/app-$2.log)"; return 1
}

PORTS=()
for i in $(seq 1 "$INSTANCES"); do
  port=$(free_port)
  mkdir -p "$WORK/app-$i"
  PORT=$port DATA_DIR="$WORK/app-$i" node dist/server.js >"$WORK/app-$i.log" 2>&1 &
  PIDS+=($!)
  disown $! # the one the driver SIGKILLs is expected to die
  PORTS+=("$port")
  # The first one creates the database and applies the migrations; the others start beside it.
  [ "$i" = 1 ] && wait_ready "$port" "$i"
done
for i in $(seq 1 "$INSTANCES"); do wait_ready "${PORTS[$((i - 1))]}" "$i"; done
log "$INSTANCES instances on ports ${PORTS[*]} (pids ${PIDS[*]})"

LB_PORT=$(free_port)
export HAPROXY_BIND="127.0.0.1:$LB_PORT"
for i in 1 2 3; do
  if [ "$i" -le "$INSTANCES" ]; then export "APP_$i=127.0.0.1:${PORTS[$((i - 1))]}"; else export "APP_$i=127.0.0.1:1"; fi
done
haproxy -f deploy/haproxy.cfg -db >"$WORK/haproxy.log" 2>&1 &
HAPROXY_PID=$!
for _ in $(seq 1 50); do curl -sk --max-time 1 "https://127.0.0.1:$LB_PORT/healthz" >/dev/null 2>&1 && break; sleep 0.2; done
log "HAProxy on 127.0.0.1:$LB_PORT"

# Organizations and keys, made the way an operator makes them.
TENANTS='['
for t in $(seq 1 "${TENANTS_COUNT:-3}"); do
  org=$(node dist/doors/cli/admin.js org create --name "Tenant $t" | node -pe 'JSON.parse(require("fs").readFileSync(0)).id')
  key=$(node dist/doors/cli/admin.js key create --org "$org" --name load --permissions events:read,events:write,bookings:read,bookings:write \
    | node -pe 'JSON.parse(require("fs").readFileSync(0)).key')
  [ "$t" = 1 ] || TENANTS+=','
  TENANTS+="{\"id\":\"$org\",\"key\":\"$key\"}"
done
TENANTS+=']'

INSTANCE_URLS=$(printf '"https://127.0.0.1:%s",' "${PORTS[@]}")
LB_URL="https://127.0.0.1:$LB_PORT" CA_FILE="$WORK/tls.crt" TENANTS="$TENANTS" REPLICA_URL="postgresql://postgres@127.0.0.1:$REPLICA_PORT/postgres" \
  KILL_PID="${PIDS[1]}" KILL_INDEX=1 INSTANCE_URLS="[${INSTANCE_URLS%,}]" node scripts/multi-host/driver.js
