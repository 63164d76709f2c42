import { describe, expect, it } from "vitest";
import { databaseKey, serviceKey } from "@levelrail/spec/keys";
import { wakeKeys } from "./wake";

const SVC = "0b5c3c1e-6f0a-4d7e-9a43-3f1c9d2a7b10";
const DB = "8d2f0e4a-2b7c-4f19-a0c6-5e3d1b9f7a22";

describe("wakeKeys", () => {
  it.each([
    ["a service container dies", "die", { "levelrail.service": SVC, "levelrail.role": "service" }, [serviceKey(SVC)]],
    ["a database's server dies", "die", { "levelrail.database": DB, "levelrail.role": "database" }, [databaseKey(DB)]],
    ["a database's server is started again by the engine", "start", { "levelrail.database": DB, "levelrail.role": "database" }, [databaseKey(DB)]],
    ["a database's server is removed", "destroy", { "levelrail.database": DB, "levelrail.role": "database" }, [databaseKey(DB)]],
    ["a pinned database's client is removed", "destroy", { "levelrail.database": DB, "levelrail.role": "database-client" }, [databaseKey(DB)]],
    ["a restore's one-off ends: its own pass's business", "die", { "levelrail.database": DB, "levelrail.role": "database-restore" }, []],
    ["a verification's throwaway ends", "die", { "levelrail.database": DB, "levelrail.role": "backup-verify" }, []],
    ["an earlier version's label by name is no id", "die", { "levelrail.service": "web" }, []],
    ["an exec in a server changes nothing", "exec_start: pg_isready", { "levelrail.database": DB, "levelrail.role": "database" }, []],
    ["a container of nothing we know", "die", {}, []],
  ])("%s", (_, action, labels, keys) => {
    expect(wakeKeys({ action, id: "c1", labels })).toEqual(keys);
  });
});
