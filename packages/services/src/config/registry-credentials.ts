import { and, eq, inArray } from "drizzle-orm";
import { registryCredential } from "@levelrail/db/schema/config";
import { service } from "@levelrail/db/schema/services";
import { registryCredentialInput } from "@levelrail/spec/config";
import { scope } from "../context";
import { sealedCredentialVerbs } from "./sealed-credentials";

/** A private registry login of an organization; its password is write-only. */
const verbs = sealedCredentialVerbs({
  noun: "registry credential",
  write: "registryCredential.write",
  plural: "registry credentials",
  table: registryCredential,
  columns: { id: registryCredential.id, orgId: registryCredential.orgId, name: registryCredential.name },
  input: registryCredentialInput,
  values: ({ password, ...fields }, seal) => ({ ...fields, passwordSealed: seal(password) }),
  view: (c) => ({
    id: c.id,
    name: c.name,
    server: c.server,
    username: c.username,
    passwordSet: true,
    createdAt: c.createdAt.toISOString(),
    updatedAt: c.updatedAt.toISOString(),
  }),
  async inUse(tx, ctx, id) {
    const users = await tx.select({ name: service.name }).from(service).where(and(eq(service.registryCredentialId, id), inArray(service.orgId, scope(ctx))));
    return users.length ? `registry credential is used by ${users.map((u) => u.name).join(", ")}; change those services first` : null;
  },
});

export const listRegistryCredentials = verbs.list;
export const createRegistryCredential = verbs.create;
export const deleteRegistryCredential = verbs.remove;
