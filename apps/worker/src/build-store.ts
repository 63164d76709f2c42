import { and, asc, eq, inArray, isNotNull, isNull, ne, notInArray, or, sql } from "drizzle-orm";
import { enqueueBuild } from "@levelrail/services/build/enqueue";
import type { Db } from "@levelrail/db/client";
import { build, buildLog, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { service } from "@levelrail/db/schema/services";
import type { Keyring } from "@levelrail/secrets";
import { isServiceId } from "@levelrail/spec/keys";
import type { GitCredentialSecret } from "./controllers/build/git";
import type { BuildRecord, BuildStore, SourceRecord } from "./controllers/build/ports";

const isId = isServiceId; // every id is a uuid

/** The PostgreSQL side of the build controller's and the poller's ports. */
export function pgBuildStore(db: Db, keyring: Keyring) {
  const store: BuildStore & {
    orgOfBuild(id: string): Promise<string | null>;
    /** Builds a worker should look at after a start: queued ones and running ones (a stopped worker's are interrupted). */
    openBuilds(): Promise<string[]>;
  } = {
    async build(id): Promise<BuildRecord | null> {
      if (!isId(id)) return null;
      const [b] = await db.select().from(build).where(eq(build.id, id));
      if (!b) return null;
      return {
        id: b.id,
        orgId: b.orgId,
        serviceId: b.serviceId,
        commit: b.commit,
        ref: b.ref,
        status: b.status,
        deploy: b.deploy,
        runner: b.runner,
        cancelRequestedAt: b.cancelRequestedAt,
        createdBy: b.createdBy,
      };
    },
    async sourceOf(serviceId): Promise<SourceRecord | null> {
      const [r] = await db
        .select({ g: gitSource, name: service.name, environmentId: service.environmentId })
        .from(gitSource)
        .innerJoin(service, and(eq(service.id, gitSource.serviceId), eq(service.orgId, gitSource.orgId)))
        .where(eq(gitSource.serviceId, serviceId));
      if (!r) return null;
      const g = r.g;
      return {
        id: g.id,
        orgId: g.orgId,
        serviceId: g.serviceId,
        serviceName: r.name,
        environmentId: r.environmentId,
        url: g.url,
        ref: g.ref,
        path: g.path,
        dockerfile: g.dockerfile,
        credentialId: g.credentialId,
        buildArgs: g.buildArgs,
        target: g.target,
      };
    },
    async serviceBusy(serviceId, buildId) {
      const rows = await db
        .select({ id: build.id })
        .from(build)
        .where(and(eq(build.serviceId, serviceId), eq(build.status, "running"), ne(build.id, buildId)))
        .limit(1);
      return rows.length > 0;
    },
    async nextQueued(serviceId) {
      const [r] = await db.select({ id: build.id }).from(build).where(and(eq(build.serviceId, serviceId), eq(build.status, "queued"))).orderBy(asc(build.createdAt)).limit(1);
      return r?.id ?? null;
    },
    async updateBuild(id, update) {
      await db.update(build).set(update).where(eq(build.id, id));
    },
    async startBuild(id, runner, at, message) {
      const rows = await db
        .update(build)
        .set({ status: "running", runner, startedAt: at, step: "fetching", message })
        .where(and(eq(build.id, id), isNull(build.cancelRequestedAt), or(eq(build.status, "queued"), and(eq(build.status, "running"), eq(build.runner, runner)))))
        .returning({ id: build.id });
      return rows.length > 0;
    },
    async cancelRequested(id) {
      const [r] = await db.select({ id: build.id }).from(build).where(and(eq(build.id, id), isNotNull(build.cancelRequestedAt)));
      return r !== undefined;
    },
    async appendLog(id, seq, lines) {
      if (!lines.length) return;
      await db
        .insert(buildLog)
        .values(lines.map((line, i) => ({ buildId: id, seq: seq + i, line })))
        .onConflictDoNothing();
    },
    async clearLog(id) {
      await db.delete(buildLog).where(eq(buildLog.buildId, id));
    },
    async credential(orgId, id): Promise<GitCredentialSecret | null> {
      const [c] = await db.select().from(gitCredential).where(and(eq(gitCredential.id, id), eq(gitCredential.orgId, orgId)));
      if (!c) return null;
      let secret: string;
      try {
        secret = keyring.open(c.sealed);
      } catch {
        throw new Error(`git credential ${c.name} cannot be decrypted with the configured master key`);
      }
      return c.kind === "ssh" ? { kind: "ssh", privateKey: secret } : { kind: "token", username: c.username ?? "x-access-token", token: secret };
    },
    async sourceSeen(sourceId, seen) {
      await db
        .update(gitSource)
        .set({
          lastError: seen.error,
          ...(seen.commit ? { lastSeenCommit: seen.commit } : {}),
          ...(seen.polled ? { lastPolledAt: new Date() } : {}),
        })
        .where(eq(gitSource.id, sourceId));
    },
    async orgOfBuild(id) {
      if (!isId(id)) return null;
      const [r] = await db.select({ orgId: build.orgId }).from(build).where(eq(build.id, id));
      return r?.orgId ?? null;
    },
    async openBuilds() {
      const rows = await db.select({ id: build.id }).from(build).where(inArray(build.status, ["queued", "running"]));
      return rows.map((r) => r.id);
    },
  };
  return store;
}

/** Sources that poll, with when they last did: the poller's view, and its way to queue a build. */
export function pgPollStore(db: Db) {
  return {
    /** Queues a build of a polled commit (deployed once built) unless that commit was built or queued already. */
    async enqueue(s: { orgId: string; serviceId: string; ref: string }, commit: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        // One poll at a time per service: the row lock orders two workers' (or a webhook's) checks.
        await tx.select({ id: service.id }).from(service).where(eq(service.id, s.serviceId)).for("update");
        const seen = await tx
          .select({ id: build.id })
          .from(build)
          .where(and(eq(build.serviceId, s.serviceId), eq(build.commit, commit), notInArray(build.status, ["superseded", "cancelled"])))
          .limit(1);
        if (seen.length) return false;
        await enqueueBuild(tx, { orgId: s.orgId, serviceId: s.serviceId, commit, ref: s.ref, trigger: "poll", createdBy: "poll" });
        return true;
      });
    },
    async pollingSources() {
      return db
        .select({ id: gitSource.id, orgId: gitSource.orgId, serviceId: gitSource.serviceId, ref: gitSource.ref, every: gitSource.pollIntervalSeconds, lastPolledAt: gitSource.lastPolledAt, lastSeenCommit: gitSource.lastSeenCommit })
        .from(gitSource)
        .where(sql`${gitSource.pollIntervalSeconds} is not null and ${gitSource.pollIntervalSeconds} > 0`);
    },
  };
}
