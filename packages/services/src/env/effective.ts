import { and, eq } from "drizzle-orm";
import { release } from "@levelrail/db/schema/services";
import {
  type EnvEntry,
  type EnvStores,
  UnresolvableError,
  canonicalJson,
  configFingerprint,
  changedKeys,
  envFingerprints,
  resolveEnv,
} from "@levelrail/spec/env";
import { type ReleaseSpec, releaseSpec } from "@levelrail/spec/service";
import type { Ctx } from "../context";
import { findService, releaseSpecOf } from "../service/view";
import { envTargetOf, pgEnvStores } from "./sources";

export interface EffectiveEnvEntry {
  key: string;
  source: EnvEntry["source"];
  /** null for secrets and credentials: they are never shown. */
  value: string | null;
  overrides: EnvEntry["source"][];
}

/** The service's effective environment: every key, its source and what it overrides; secret values null. */
export async function effectiveEnv({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<EffectiveEnvEntry[]> {
  const { service: s } = await findService(ctx, envId, name, "service.read");
  const target = await envTargetOf(ctx.db, s.id);
  if (!target) return [];
  const stores = pgEnvStores(ctx.db, ctx.kit.keyring);
  // Secret values are never needed here: name their keys from the declaration, open nothing.
  const secrets = Object.fromEntries(target.secretKeys.map((k) => [k, ""]));
  const view: EnvStores = { ...stores, secrets: { secretsOf: async () => secrets } };
  let entries: EnvEntry[];
  try {
    entries = await resolveEnv(target, view);
  } catch (err) {
    if (!(err instanceof UnresolvableError)) throw err;
    // Show what resolves; the deploy will fail naming the rest.
    entries = await resolveEnv({ ...target, storageTargetId: null, databaseEnv: {} }, view);
  }
  return entries.map((e) => ({ key: e.key, source: e.source, value: e.sensitive ? null : e.value, overrides: e.overrides }));
}

/** What a release fingerprints: everything but the image (which names the container by itself). */
export const fingerprintedSpec = ({ image: _image, ...rest }: ReleaseSpec) => rest;

/** Fingerprints of a spec with the service's current environment (resolves secrets in memory, never returns them). */
export async function fingerprintConfig(ctx: Ctx, serviceId: string, spec: ReleaseSpec) {
  const target = await envTargetOf(ctx.db, serviceId);
  if (!target) return null;
  try {
    const entries = await resolveEnv({ ...target, env: spec.env }, pgEnvStores(ctx.db, ctx.kit.keyring));
    const prints = envFingerprints(ctx.kit.fingerprintKey, entries);
    return { fingerprint: configFingerprint(ctx.kit.fingerprintKey, fingerprintedSpec(spec), prints), envFingerprints: prints };
  } catch (err) {
    if (err instanceof UnresolvableError) return { fingerprint: null, envFingerprints: null, problem: err.message };
    throw err;
  }
}

export interface ConfigDrift {
  deployed: boolean;
  /** Env keys whose value differs from the current release (names only). */
  changedKeys: string[];
  /** Service fields that differ from the current release. */
  changedFields: string[];
  /** A declared value that cannot be resolved now. */
  problem: string | null;
}

/** "Configuration changed since the last deploy", computed from fingerprints, never guessed. */
export async function configDrift({ ctx, envId, name }: { ctx: Ctx; envId: string; name: string }): Promise<ConfigDrift> {
  const { service: s } = await findService(ctx, envId, name, "service.read");
  const [rel] = s.currentReleaseId
    ? await ctx.db.select().from(release).where(and(eq(release.id, s.currentReleaseId), eq(release.orgId, s.orgId)))
    : [];
  if (!rel) return { deployed: false, changedKeys: [], changedFields: [], problem: null };
  const draft = releaseSpecOf(s);
  // Every field a spec may have: one left out of either side (default `resources`) differs from one set.
  const fields = (Object.keys(releaseSpec.shape) as (keyof ReleaseSpec)[]).filter(
    (k) => k !== "env" && canonicalJson(draft[k]) !== canonicalJson(rel.spec[k]),
  );
  const now = await fingerprintConfig(ctx, s.id, draft);
  return {
    deployed: true,
    changedKeys: now?.envFingerprints && rel.envFingerprints ? changedKeys(rel.envFingerprints, now.envFingerprints) : [],
    changedFields: fields,
    problem: now && "problem" in now ? (now.problem ?? null) : null,
  };
}
