#!/bin/sh
# Entrypoint of the PostgreSQL test image (packages/testkit/src/postgres-image.ts), following the
# official postgres image's conventions: POSTGRES_USER (default postgres), POSTGRES_PASSWORD
# (required unless POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default: the user), PGDATA.
# Started as root it owns the data dir, then runs itself again as postgres (busybox su execs, no
# fork); as postgres it initialises an empty data dir once and execs the server (PID 1).
set -eu

# `docker run IMAGE -c key=value`: options for the server
if [ "${1#-}" != "${1:-}" ]; then set -- postgres "$@"; fi

if [ "${1:-}" = "postgres" ] && [ "$(id -u)" = "0" ]; then
	mkdir -p "$PGDATA" /var/run/postgresql
	chown postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	chmod 2775 /var/run/postgresql
	exec su -p -s /bin/sh postgres "$0" "$@"
fi

if [ "${1:-}" = "postgres" ] && [ ! -s "$PGDATA/PG_VERSION" ]; then
	user="${POSTGRES_USER:-postgres}"
	db="${POSTGRES_DB:-$user}"
	auth="${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}"
	if [ -z "${POSTGRES_PASSWORD:-}" ] && [ "$auth" != "trust" ]; then
		echo "error: database is uninitialized and POSTGRES_PASSWORD is not set" >&2
		echo "  (set POSTGRES_HOST_AUTH_METHOD=trust to allow connections without a password)" >&2
		exit 1
	fi
	pwfile="$(mktemp)"
	trap 'rm -f "$pwfile"' EXIT
	printf '%s' "${POSTGRES_PASSWORD:-}" >"$pwfile"
	init() {
		initdb -D "$PGDATA" --username="$user" --encoding=UTF8 --locale=C \
			--auth-local=trust --auth-host="$auth" "$@" >/dev/null
	}
	if [ -n "${POSTGRES_PASSWORD:-}" ]; then init --pwfile="$pwfile"; else init; fi
	rm -f "$pwfile"
	printf '\nhost all all all %s\n' "$auth" >>"$PGDATA/pg_hba.conf"
	printf "\nlisten_addresses = '*'\n" >>"$PGDATA/postgresql.conf"
	if [ "$db" != "postgres" ]; then
		# only on the socket while the database is being made
		pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
		psql -v ON_ERROR_STOP=1 --no-password --no-psqlrc --username="$user" --dbname=postgres \
			--set=db="$db" --quiet <<-'SQL'
			CREATE DATABASE :"db";
		SQL
		pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
	fi
	echo "PostgreSQL init process complete; ready for start up."
fi

exec "$@"
