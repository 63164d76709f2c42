import { eq } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { backupTarget, registryCredential, secret } from "@levelrail/db/schema/config";
import { managedDatabase } from "@levelrail/db/schema/databases";
import { ssoConnection } from "@levelrail/db/schema/sso";
import { Keyring } from "@levelrail/secrets";

/**
 * Re-seals every secret, storage secret key, registry password, managed database password and SSO client secret under the
 * keyring's current key (each opened with whichever key sealed it). Values
 * already under the current key are left alone, so a re-run after a crash
 * finishes the job. Returns how many values were re-sealed.
 */
export async function resealAll(db: Db, keyring: Keyring): Promise<{ resealed: number; total: number }> {
  const current = keyring.currentVersion;
  let resealed = 0;
  let total = 0;
  await db.transaction(async (tx) => {
    const pass = async (rows: { id: string; sealed: string }[], write: (id: string, sealed: string) => Promise<unknown>) => {
      for (const r of rows) {
        total++;
        if (Keyring.versionOf(r.sealed) === current) continue;
        await write(r.id, keyring.seal(keyring.open(r.sealed)));
        resealed++;
      }
    };
    await pass(await tx.select({ id: secret.id, sealed: secret.sealed }).from(secret), (id, sealed) =>
      tx.update(secret).set({ sealed }).where(eq(secret.id, id)),
    );
    await pass(await tx.select({ id: backupTarget.id, sealed: backupTarget.secretKeySealed }).from(backupTarget), (id, sealed) =>
      tx.update(backupTarget).set({ secretKeySealed: sealed }).where(eq(backupTarget.id, id)),
    );
    await pass(await tx.select({ id: registryCredential.id, sealed: registryCredential.passwordSealed }).from(registryCredential), (id, sealed) =>
      tx.update(registryCredential).set({ passwordSealed: sealed }).where(eq(registryCredential.id, id)),
    );
    await pass(await tx.select({ id: managedDatabase.id, sealed: managedDatabase.passwordSealed }).from(managedDatabase), (id, sealed) =>
      tx.update(managedDatabase).set({ passwordSealed: sealed }).where(eq(managedDatabase.id, id)),
    );
    await pass(await tx.select({ id: ssoConnection.orgId, sealed: ssoConnection.clientSecretSealed }).from(ssoConnection), (id, sealed) =>
      tx.update(ssoConnection).set({ clientSecretSealed: sealed }).where(eq(ssoConnection.orgId, id)),
    );
  });
  return { resealed, total };
}
