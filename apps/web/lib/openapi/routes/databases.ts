// Managed databases, their backups, restores and kept volumes.
import { z } from "zod";
import { backupRequest, databaseInput, databasePatch, restoreInput, volumeRemoval } from "@levelrail/spec/database";
import { op } from "../operation";
import { anyObject, backupSchema, databaseDetailSchema, databaseSchema } from "../schemas";

const E = "/api/v1/environments/{envId}";
const D = `${E}/databases/{db}`;

export const DATABASE_ROUTES = [
  op({ method: "get", path: `${E}/databases`, id: "listDatabases", tag: "Databases", summary: "The environment's managed databases", ok: { status: 200, description: "the databases", schema: z.array(databaseSchema) } }),
  op({ method: "post", path: `${E}/databases`, id: "createDatabase", tag: "Databases", summary: "Create a PostgreSQL server (its password generated and sealed)", body: databaseInput, ok: { status: 201, description: "the database", schema: databaseSchema } }),
  op({ method: "get", path: D, id: "getDatabase", tag: "Databases", summary: "One database with who attaches it, its kept volumes and latest restores", ok: { status: 200, description: "the database", schema: databaseDetailSchema } }),
  op({ method: "patch", path: D, id: "patchDatabase", tag: "Databases", summary: "Change the backup schedule", body: databasePatch, ok: { status: 200, description: "the database", schema: databaseSchema } }),
  op({
    method: "delete",
    path: D,
    id: "deleteDatabase",
    tag: "Databases",
    summary: "Delete a database (its data only with `?dropData=true`)",
    query: z.strictObject({ dropData: z.enum(["true", "false"]).optional() }),
    ok: { status: 204, description: "deleted" },
  }),
  op({ method: "get", path: `${D}/backups`, id: "listBackups", tag: "Backups", summary: "The database's backups, newest first", query: z.strictObject({ limit: z.string().optional() }), ok: { status: 200, description: "the backups", schema: z.array(backupSchema) } }),
  op({ method: "post", path: `${D}/backups`, id: "requestBackup", tag: "Backups", summary: "Take a backup now (verified by a restore)", body: backupRequest, ok: { status: 202, description: "the backup, running", schema: backupSchema } }),
  op({ method: "get", path: `${D}/backups/{id}`, id: "getBackup", tag: "Backups", summary: "One backup", ok: { status: 200, description: "the backup", schema: backupSchema } }),
  op({ method: "post", path: `${D}/backups/{id}/verify`, id: "verifyBackup", tag: "Backups", summary: "Verify that backup again, from the object in storage", ok: { status: 202, description: "the backup", schema: backupSchema } }),
  op({ method: "post", path: `${D}/restore`, id: "restoreBackup", tag: "Backups", summary: "Restore a backup into a new database, or replace the data", body: restoreInput, ok: { status: 202, description: "the restore", schema: anyObject } }),
  op({ method: "delete", path: `${D}/volumes/{volume}`, id: "removeVolume", tag: "Databases", summary: "Remove a volume a replacing restore kept (type its name to confirm)", body: volumeRemoval, ok: { status: 204, description: "removed" } }),
];
