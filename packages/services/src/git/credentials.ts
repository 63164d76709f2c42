import { and, eq, inArray, or } from "drizzle-orm";
import { gitCredential, gitSource } from "@levelrail/db/schema/git";
import { service } from "@levelrail/db/schema/services";
import { type GitCredentialInput, type GitCredentialView, gitCredentialInput } from "@levelrail/spec/git";
import { sealedCredentialVerbs } from "../config/sealed-credentials";
import { scope } from "../context";
import { generateDeployKey } from "./deploy-key";

type Row = typeof gitCredential.$inferSelect;

export function gitCredentialView(c: Row): GitCredentialView {
  return { id: c.id, name: c.name, kind: c.kind, publicKey: c.publicKey, username: c.username, hosts: c.hosts, createdAt: c.createdAt.toISOString() };
}

/**
 * A deploy key is generated here (its private half sealed at once); a token is sealed as given. Both
 * keep the hosts they may be sent to (a token must name at least one).
 */
function values(input: GitCredentialInput, seal: (plain: string) => string) {
  if (input.kind === "ssh") {
    const key = generateDeployKey(`levelrail-${input.name}`);
    return { name: input.name, kind: "ssh" as const, publicKey: key.publicKey, username: null, hosts: input.hosts, sealed: seal(key.privateKey) };
  }
  return { name: input.name, kind: "token" as const, publicKey: null, username: input.username ?? null, hosts: input.hosts, sealed: seal(input.token) };
}

/** An organization's git credentials: a generated SSH deploy key or an HTTPS token, write-only, bound to the hosts it may be sent to. */
const verbs = sealedCredentialVerbs({
  noun: "git credential",
  plural: "git credentials",
  write: "gitCredential.write",
  table: gitCredential,
  columns: { id: gitCredential.id, orgId: gitCredential.orgId, name: gitCredential.name },
  input: gitCredentialInput,
  // Omit<> of a union keeps only the common keys; the object is the parsed input itself.
  values: (input, seal) => values(input as GitCredentialInput, seal),
  view: gitCredentialView,
  async inUse(tx, ctx, id) {
    const users = await tx
      .select({ name: service.name })
      .from(gitSource)
      .innerJoin(service, eq(service.id, gitSource.serviceId))
      .where(and(or(eq(gitSource.credentialId, id), eq(gitSource.apiCredentialId, id)), inArray(gitSource.orgId, scope(ctx))));
    return users.length ? `git credential is used by the source of ${users.map((u) => u.name).join(", ")}; change those services' source first` : null;
  },
});

export const listGitCredentials = ({ ctx, orgId }: Parameters<typeof verbs.list>[0] & { orgId: string }) => verbs.list({ ctx, orgId });
/** `orgId` from the path wins over any in the body. */
export const createGitCredential = ({ ctx, orgId, input }: { ctx: Parameters<typeof verbs.create>[0]["ctx"]; orgId: string; input: unknown }) =>
  verbs.create({ ctx, input: input !== null && typeof input === "object" ? { ...input, orgId } : input });
export const deleteGitCredential = ({ ctx, orgId, id }: { ctx: Parameters<typeof verbs.remove>[0]["ctx"]; orgId: string; id: string }) => verbs.remove({ ctx, orgId, id });
