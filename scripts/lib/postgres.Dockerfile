# The PostgreSQL images built FROM scratch from host binaries: the managed-database test image
# (packages/testkit/src/postgres-image.ts) and the panel's own (scripts/install/images.ts), which
# replace @PG_BIN@ with where their PostgreSQL binaries are. As the official postgres image.
FROM scratch
COPY . /
ENV PATH=@PG_BIN@:/bin PGDATA=/var/lib/postgresql/data
VOLUME /var/lib/postgresql/data
EXPOSE 5432
# as the official image: SIGINT is PostgreSQL's fast shutdown (SIGTERM waits for clients to leave)
STOPSIGNAL SIGINT
ENTRYPOINT ["/usr/local/bin/docker-entrypoint.sh"]
CMD ["postgres"]
