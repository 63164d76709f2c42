import { createBackupTarget, listBackupTargets } from "@levelrail/services/config/backup-targets";
import { created, json, route } from "@/lib/api";

/** S3-compatible storage targets; the secret key is write-only (never answered). */
export const GET = route(async ({ ctx }) => json(await listBackupTargets({ ctx })));

export const POST = route(async ({ ctx, body }) => created(await createBackupTarget({ ctx, input: await body() })));
