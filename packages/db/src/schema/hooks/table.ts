import { index, integer, jsonb, pgTable, text, timestamp, unique, uuid } from "drizzle-orm/pg-core";
import { organization } from "../orgs/table";
import { release, service } from "../services/table";

export const HOOK_PHASES = ["pre", "post"] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];
export const HOOK_OUTCOMES = ["running", "succeeded", "failed", "timed_out", "error"] as const;
export type HookOutcome = (typeof HOOK_OUTCOMES)[number];

/** One run of a pre- or post-deploy hook, with its combined output (capped at 1 MiB). */
export const hookRun = pgTable(
  "hook_run",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    orgId: uuid("org_id").notNull().references(() => organization.id, { onDelete: "cascade" }),
    serviceId: uuid("service_id").notNull().references(() => service.id, { onDelete: "cascade" }),
    releaseId: uuid("release_id").notNull().references(() => release.id, { onDelete: "cascade" }),
    phase: text("phase").$type<HookPhase>().notNull(),
    command: jsonb("command").$type<string[]>().notNull(),
    /** The hook container or exec that ran it: a resumed run is the same row. */
    attempt: text("attempt").notNull(),
    startedAt: timestamp("started_at", { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp("finished_at", { withTimezone: true }),
    exitCode: integer("exit_code"),
    outcome: text("outcome").$type<HookOutcome>().notNull().default("running"),
    output: text("output").notNull().default(""),
    message: text("message").notNull().default(""),
  },
  (t) => [unique("hook_run_attempt").on(t.releaseId, t.phase, t.attempt), index("hook_run_service_started").on(t.serviceId, t.startedAt)],
);
