#!/bin/sh
# Entrypoint of the PostgreSQL images built from host binaries: the managed-database test image
# (packages/testkit/src/postgres-image.ts) and the panel's own (`levelrail install`,
# scripts/install/images.ts). It follows the official postgres image's conventions: POSTGRES_USER
# (default postgres), POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE (required unless
# POSTGRES_HOST_AUTH_METHOD=trust), POSTGRES_DB (default: the user), PGDATA.
# Started as root it owns the data dir, reads a *_FILE secret (it may be readable by root only),
# then runs itself again as postgres (busybox su execs, no fork); as postgres it initialises an
# empty data dir once and execs the server (PID 1) without the password in its environment.
set -eu

# VAR_FILE=path: VAR is the file's content (as the official image's file_env; not both at once)
file_env() {
	eval "value=\${$1:-}"
	eval "file=\${$1_FILE:-}"
	if [ -n "$value" ] && [ -n "$file" ]; then
		echo "error: both $1 and $1_FILE are set (they are exclusive)" >&2
		exit 1
	fi
	if [ -n "$file" ]; then
		export "$1"="$(cat "$file")"
		unset "$1_FILE"
	fi
}

# `docker run IMAGE -c key=value`: options for the server
if [ "${1#-}" != "${1:-}" ]; then set -- postgres "$@"; fi

if [ "${1:-}" = "postgres" ] && [ "$(id -u)" = "0" ]; then
	if [ ! -s "$PGDATA/PG_VERSION" ]; then file_env POSTGRES_PASSWORD; else unset POSTGRES_PASSWORD_FILE; fi
	mkdir -p "$PGDATA" /var/run/postgresql
	chown postgres:postgres "$PGDATA" /var/run/postgresql
	chmod 700 "$PGDATA"
	chmod 2775 /var/run/postgresql
	# `--`: busybox su would take a server option such as -c or -p for its own
	exec su -p -s /bin/sh -- postgres "$0" "$@"
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
		# single-user mode: no server listens while the database is being made, and no psql is
		# needed (the panel's image has none); the name is quoted as an identifier
		quoted="$(printf '%s' "$db" | sed 's/"/""/g')"
		printf 'CREATE DATABASE "%s";\n' "$quoted" | postgres --single -D "$PGDATA" postgres >/dev/null
	fi
	echo "PostgreSQL init process complete; ready for start up."
fi
unset POSTGRES_PASSWORD

exec "$@"
