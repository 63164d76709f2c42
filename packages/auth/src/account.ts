import { and, desc, eq, gt, ne } from "drizzle-orm";
import type { Db } from "@levelrail/db/client";
import { session, twoFactor, user } from "@levelrail/db/schema/auth";
import { LevelrailError } from "@levelrail/spec/errors";
import { SECOND_FACTOR_LOCKOUT } from "./index";

/** The database or a transaction of it: the verbs that audit these changes run them in theirs. */
type Tx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

/** One signed-in browser of a user, as listed: never its token. */
export interface SessionView {
  id: string;
  userAgent: string | null;
  ipAddress: string | null;
  createdAt: string;
  /** When the session was last renewed: within an hour of its last use (SESSION_UPDATE_AGE_SECONDS). */
  lastActiveAt: string;
  expiresAt: string;
  /** The session of the request that asked. */
  current: boolean;
}

/** A user's second factor as their account page shows it. */
export interface SecondFactorView {
  enabled: boolean;
  /** Locked after SECOND_FACTOR_LOCKOUT.maxFailedAttempts wrong codes, until this instant. */
  lockedUntil: string | null;
}

/**
 * `ssoOrgId` (the organization whose single sign-on opened the caller's session): such a session
 * acts in that organization only, so it sees and ends only the sessions that organization's single
 * sign-on opened, never the person's others (their addresses, or signing them out elsewhere).
 */
const within = (ssoOrgId: string | null | undefined) => (ssoOrgId ? eq(session.ssoOrgId, ssoOrgId) : undefined);

/** The user's live sessions, most recently active first. */
export async function listSessions(db: Db, userId: string, currentSessionId: string | undefined, ssoOrgId?: string | null): Promise<SessionView[]> {
  const rows = await db
    .select()
    .from(session)
    .where(and(eq(session.userId, userId), gt(session.expiresAt, new Date()), within(ssoOrgId)))
    .orderBy(desc(session.updatedAt))
    .limit(1000);
  return rows.map((s) => ({
    id: s.id,
    userAgent: s.userAgent,
    ipAddress: s.ipAddress,
    createdAt: s.createdAt.toISOString(),
    lastActiveAt: s.updatedAt.toISOString(),
    expiresAt: s.expiresAt.toISOString(),
    current: s.id === currentSessionId,
  }));
}

/** Ends one of the user's sessions (their own only; 404 otherwise): that browser is signed out at its next request. */
export async function endSession(db: Tx, userId: string, id: string, ssoOrgId?: string | null): Promise<void> {
  const gone = await db
    .delete(session)
    .where(and(eq(session.id, id), eq(session.userId, userId), within(ssoOrgId)))
    .returning({ id: session.id });
  if (gone.length === 0) throw new LevelrailError("not_found", "session not found");
}

/** Ends every session of the user but `keepId` (the caller's own); answers how many ended. */
export async function endOtherSessions(db: Tx, userId: string, keepId: string | undefined, ssoOrgId?: string | null): Promise<number> {
  const gone = await db
    .delete(session)
    .where(and(eq(session.userId, userId), keepId === undefined ? undefined : ne(session.id, keepId), within(ssoOrgId)))
    .returning({ id: session.id });
  return gone.length;
}

/** Signs the user out everywhere: every session ends (API tokens are not sessions and keep working). */
export async function endAllSessions(db: Tx, userId: string): Promise<number> {
  return endOtherSessions(db, userId, undefined);
}

export async function secondFactorOf(db: Db, userId: string): Promise<SecondFactorView> {
  const [row] = await db
    .select({ enabled: user.twoFactorEnabled, lockedUntil: twoFactor.lockedUntil })
    .from(user)
    .leftJoin(twoFactor, eq(twoFactor.userId, user.id))
    .where(eq(user.id, userId));
  if (!row) throw new LevelrailError("not_found", "user not found");
  const locked = row.lockedUntil !== null && row.lockedUntil.getTime() > Date.now();
  return { enabled: row.enabled, lockedUntil: locked ? row.lockedUntil!.toISOString() : null };
}

/**
 * A lost device: the user's TOTP secret and recovery codes are removed and their second factor is
 * off, so the next sign-in needs the password only (and an organization that requires one sends
 * them to enrol again). Answers whether they had one.
 */
export async function resetSecondFactor(db: Tx, userId: string): Promise<boolean> {
  return db.transaction(async (tx) => {
    const [u] = await tx.select({ enabled: user.twoFactorEnabled }).from(user).where(eq(user.id, userId)).for("update");
    if (!u) throw new LevelrailError("not_found", "user not found");
    const removed = await tx.delete(twoFactor).where(eq(twoFactor.userId, userId)).returning({ id: twoFactor.id });
    await tx.update(user).set({ twoFactorEnabled: false, updatedAt: new Date() }).where(eq(user.id, userId));
    return u.enabled || removed.length > 0;
  });
}

/** What the account page says about the lockout. */
export const lockoutText = `${SECOND_FACTOR_LOCKOUT.maxFailedAttempts} wrong codes lock the second factor for ${SECOND_FACTOR_LOCKOUT.durationSeconds / 60} minutes`;
