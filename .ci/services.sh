#!/usr/bin/env bash
# Makes sure the services the integration tests use are up on loopback: PostgreSQL (5432),
# MariaDB (3306) and Redis (6379). They normally run already; this starts any that is down.
set -uo pipefail

wait_for() { # name, command
  for _ in $(seq 1 60); do
    if eval "$2" >/dev/null 2>&1; then echo "$1: up"; return 0; fi
    sleep 1
  done
  echo "$1: not reachable after 60 s" >&2
  return 1
}

if ! pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
  echo "postgresql: starting"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
fi
wait_for postgresql "pg_isready -h 127.0.0.1 -p 5432"

if ! mariadb-admin -h 127.0.0.1 -u root ping >/dev/null 2>&1; then
  echo "mariadb: starting"
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd || true
fi
wait_for mariadb "mariadb-admin -h 127.0.0.1 -u root ping"

if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
  echo "redis: starting"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /tmp --logfile /tmp/redis-ci.log || true
fi
wait_for redis "redis-cli -h 127.0.0.1 -p 6379 ping"
