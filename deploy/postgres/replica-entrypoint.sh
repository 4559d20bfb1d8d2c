#!/usr/bin/env bash
# The streaming replica of docker-compose.yml's `replicated` profile: at its first start, a base backup
# of the primary (pg_basebackup -R writes standby.signal and primary_conninfo); then a hot standby
# that answers reads (DATABASE_READ_URL) while it replays the primary's WAL.
set -euo pipefail
PGDATA=${PGDATA:-/var/lib/postgresql/data}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_basebackup -h "${PRIMARY_HOST:-postgres}" -U "${PRIMARY_USER:-events}" -D "$PGDATA" -R -X stream; do
    echo "replica: the primary is not ready for a base backup yet; trying again in 2 s"
    rm -rf "${PGDATA:?}"/*
    sleep 2
  done
  chmod 700 "$PGDATA"
fi
exec postgres -D "$PGDATA" -c hot_standby=on
