import { and, eq, ne, or } from "drizzle-orm";
import { notifyDesired } from "@levelrail/db/notify";
import { gitCredential, gitSource, preview, previewSettings } from "@levelrail/db/schema/git";
import { environment } from "@levelrail/db/schema/orgs";
import { service } from "@levelrail/db/schema/services";
import { PREVIEWS_KEY } from "@levelrail/spec/keys";
import { type SweptPreview, normalizeRepo, repoPathOf } from "@levelrail/spec/preview";
import { recordAudit } from "../audit/record";
import type { ProviderApi } from "./provider-api";
import type { PreviewDeps } from "./worker-ctx";

/** The previews of one project and repository, with the provider API that lists the repository's open requests (null: none configured). */
export interface SweepTarget {
  projectId: string;
  repo: string;
  /** Null: the project's preview settings are gone (its base environment was deleted); its previews close. */
  ttlHours: number | null;
  previews: (SweptPreview & { id: string })[];
  api: ProviderApi | null;
  repoPath: string;
}

/** Every project's previews still open (or refused), grouped by repository, with what the sweep needs. */
export async function sweepTargets(d: PreviewDeps): Promise<SweepTarget[]> {
  const rows = await d.db
    .select({ p: preview, ttl: previewSettings.ttlHours })
    .from(preview)
    .leftJoin(previewSettings, eq(previewSettings.projectId, preview.projectId))
    .where(or(eq(preview.state, "open"), eq(preview.state, "refused")));
  if (!rows.length) return [];
  const projects = [...new Set(rows.map((r) => r.p.projectId))];
  const targets = new Map<string, SweepTarget>();
  for (const { p, ttl } of rows) {
    const key = `${p.projectId} ${p.repo}`;
    const t = targets.get(key) ?? { projectId: p.projectId, repo: p.repo, ttlHours: ttl, previews: [], api: null, repoPath: "" };
    t.previews.push({ id: p.id, number: p.number, state: p.state, updatedAt: p.updatedAt });
    targets.set(key, t);
  }
  for (const projectId of projects) {
    const sources = await d.db
      .select({ src: gitSource, sealed: gitCredential.sealed, kind: gitCredential.kind })
      .from(gitSource)
      .innerJoin(service, eq(service.id, gitSource.serviceId))
      .innerJoin(environment, eq(environment.id, service.environmentId))
      .leftJoin(gitCredential, and(eq(gitCredential.id, gitSource.apiCredentialId), eq(gitCredential.orgId, gitSource.orgId)))
      .where(eq(environment.projectId, projectId));
    for (const { src, sealed, kind } of sources) {
      const t = targets.get(`${projectId} ${normalizeRepo(src.url)}`);
      if (!t || t.api || !src.apiProvider || !src.apiUrl) continue;
      t.api = { provider: src.apiProvider, url: src.apiUrl, token: sealed && kind === "token" ? d.kit.keyring.open(sealed) : null };
      t.repoPath = repoPathOf(src.url);
    }
  }
  return [...targets.values()];
}

/** The provider API of a preview's repository (for its status), or null. */
export async function apiOfPreview(d: PreviewDeps, id: string): Promise<ProviderApi | null> {
  const [p] = await d.db.select().from(preview).where(eq(preview.id, id));
  if (!p) return null;
  const t = (await sweepTargets(d)).find((x) => x.projectId === p.projectId && x.repo === p.repo);
  return t?.api ?? null;
}

/** Closes a preview the sweep found expired or no longer open at the provider (the controller then deletes its environment). */
export async function closeSwept(d: PreviewDeps, id: string, reason: string): Promise<boolean> {
  return d.db.transaction(async (tx) => {
    const now = new Date();
    const [row] = await tx
      .update(preview)
      .set({ state: "closed", closedAt: now, updatedAt: now, message: `closed by the sweep: ${reason}; deleting its environment` })
      .where(and(eq(preview.id, id), ne(preview.state, "closed")))
      .returning();
    if (!row) return false;
    await recordAudit(tx, { actor: { type: "worker", id: d.runner, name: "previews" }, ip: null }, { orgId: row.orgId, action: "preview.close", target: { type: "preview", id: row.id, name: `#${row.number}` }, fields: ["state"] });
    await notifyDesired(tx, PREVIEWS_KEY);
    return true;
  });
}
