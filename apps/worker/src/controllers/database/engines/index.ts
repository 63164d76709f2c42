import type { DatabaseEngineId } from "@levelrail/spec/database";
import type { DatabaseEngine, ExecPort } from "../ports";
import { postgresEngine } from "./postgres";

/** Every engine a database may run, one module each: another engine is one more entry here. */
export function engineFor(runtime: ExecPort): (id: DatabaseEngineId) => DatabaseEngine {
  const engines: Record<DatabaseEngineId, DatabaseEngine> = { postgres: postgresEngine(runtime) };
  return (id) => engines[id];
}
