import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { domainToken } from "@levelrail/db/schema/domains";

/** What a token query runs on: the database or a transaction. */
type Queryable = Pick<Db, "insert" | "select">;

/** A fresh token: 128 random bits, in a form DNS providers take as a TXT value as it is. */
export const newDomainToken = () => `levelrail-verification=${randomBytes(16).toString("hex")}`;

/** The organization's domain token, made (once, whoever asks first) when it has none. */
export async function ensureDomainToken(db: Queryable, orgId: string): Promise<string> {
  await db.insert(domainToken).values({ orgId, token: newDomainToken() }).onConflictDoNothing();
  const [row] = await db.select({ token: domainToken.token }).from(domainToken).where(eq(domainToken.orgId, orgId));
  return row!.token;
}
