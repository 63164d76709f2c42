import { and, asc, eq, inArray, isNotNull, isNull, ne, notInArray, or, sql } from "drizzle-orm";
import { enqueueBuild } from "@levelrail/services/build/enqueue";
import type { Db } from "@levelrail/db/client";
import { registryCredential } from "@levelrail/db/schema/config";
import { build, buildLog, gitCredential, gitSource } from "@levelrail/db/schema/git";
import { service } from "@levelrail/db/schema/services";
import type { RegistryAuth } from "@levelrail/docker";
import type { Keyring } from "@levelrail/secrets";
import { isServiceId } from "@levelrail/spec/keys";
import type { GitCredentialSecret } from "./controllers/build/git";
import type { BuildRecord, BuildStore, SourceRecord } from "./controllers/build/ports";
import { type Fence, LostLeadError, assertLeads, leads } from "./fence";

const isId = isServiceId; // every id is a uuid

/** Every registry login of an organization, opened (a build may start from what one of them may pull). */
export function pgRegistryLogins(db: Db, keyring: Keyring): (orgId: string) => Promise<RegistryAuth[]> {
  return async (orgId) => {
    const rows = await db.select().from(registryCredential).where(eq(registryCredential.orgId, orgId));
    const out: RegistryAuth[] = [];
    for (const c of rows) {
      try {
        out.push({ serveraddress: c.server, username: c.username, password: keyring.open(c.passwordSealed) });
      } catch {
        // One that cannot be opened with this master key is no login: the check goes on without it.
      }
    }
    return out;
  };
}

/**
 * The PostgreSQL side of the build controller's and the poller's ports. With a `fence`, a build's
 * writes (its start, status, step and outcome, its log, what its source saw) land only while that
 * worker leads; otherwise they change nothing and throw `LostLeadError`, so a deposed leader's
 * build cannot write over the next leader's "interrupted" (as `database-store.ts` and `hook-store.ts`).
 */
export function pgBuildStore(db: Db, keyring: Keyring, fence?: Fence) {
  /** A fenced write that changed no row: refused if this worker no longer leads (else its row is gone). */
  const changed = async (rows: unknown[]) => {
    if (rows.length === 0) await assertLeads(db, fence);
    return rows.length > 0;
  };
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
        trigger: b.trigger,
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
      await changed(await db.update(build).set(update).where(and(eq(build.id, id), leads(fence))).returning({ id: build.id }));
    },
    async startBuild(id, runner, at, message) {
      const rows = await db
        .update(build)
        .set({ status: "running", runner, startedAt: at, step: "fetching", message })
        .where(and(eq(build.id, id), isNull(build.cancelRequestedAt), or(eq(build.status, "queued"), and(eq(build.status, "running"), eq(build.runner, runner))), leads(fence)))
        .returning({ id: build.id });
      return changed(rows);
    },
    async cancelRequested(id) {
      const [r] = await db.select({ id: build.id }).from(build).where(and(eq(build.id, id), isNotNull(build.cancelRequestedAt)));
      return r !== undefined;
    },
    async appendLog(id, seq, lines) {
      if (!lines.length) return;
      if (!fence) {
        await db
          .insert(buildLog)
          .values(lines.map((line, i) => ({ buildId: id, seq: seq + i, line })))
          .onConflictDoNothing();
        return;
      }
      // One statement, so the lines land only while the fence holds (a retried batch conflicts and changes nothing).
      const values = sql.join(
        lines.map((line, i) => sql`(${id}::uuid, ${seq + i}::integer, ${line}::text)`),
        sql`, `,
      );
      const rows = await db.execute<{ seq: number }>(
        sql`insert into ${buildLog} (build_id, seq, line) select v.build_id, v.seq, v.line from (values ${values}) as v(build_id, seq, line) where ${leads(fence)} on conflict do nothing returning seq`,
      );
      await changed([...rows]);
    },
    async clearLog(id) {
      await changed(await db.delete(buildLog).where(and(eq(buildLog.buildId, id), leads(fence))).returning({ seq: buildLog.seq }));
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
      return c.kind === "ssh" ? { kind: "ssh", privateKey: secret, hosts: c.hosts } : { kind: "token", username: c.username ?? "x-access-token", token: secret, hosts: c.hosts };
    },
    async sourceSeen(sourceId, seen) {
      await db
        .update(gitSource)
        .set({
          lastError: seen.error,
          ...(seen.commit ? { lastSeenCommit: seen.commit } : {}),
          ...(seen.polled ? { lastPolledAt: new Date() } : {}),
        })
        .where(and(eq(gitSource.id, sourceId), leads(fence)))
        .returning({ id: gitSource.id })
        .then(changed);
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

/** Sources that poll, with when they last did: the poller's view, and its way to queue a build (fenced as the build store). */
export function pgPollStore(db: Db, fence?: Fence) {
  return {
    /** Queues a build of a polled commit (deployed once built) unless that commit was built or queued already. */
    async enqueue(s: { orgId: string; serviceId: string; ref: string }, commit: string): Promise<boolean> {
      return db.transaction(async (tx) => {
        // One poll at a time per service: the row lock orders two workers' (or a webhook's) checks.
        await tx.select({ id: service.id }).from(service).where(eq(service.id, s.serviceId)).for("update");
        const [lead] = await tx.execute<{ ok: boolean }>(sql`select ${leads(fence)} as ok`);
        if (!lead?.ok) throw new LostLeadError();
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
