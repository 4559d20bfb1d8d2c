#!/usr/bin/env bash
# Run once by the postgres image when it initializes its data directory (/docker-entrypoint-initdb.d):
# lets the replica of docker-compose.yml's `replicated` profile stream the WAL with a password.
set -euo pipefail
echo "host replication all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
