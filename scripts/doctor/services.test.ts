// The decisions of the service checks (Caddy's admin API, mesh DNS, PostgreSQL, migrations, the
// worker, backups) on injected probes.
import { describe, expect, it } from "vitest";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import {
  type BackupRow,
  type DbProbe,
  backupsCheck,
  backupsVerdict,
  migrationsVerdict,
  postgresCheck,
  scheduleIntervalMs,
  workerCheck,
  workerVerdict,
} from "./database";
import { type CaddyProbe, type HttpAnswer, type MeshProbe, caddyAdminCheck, knownName, meshDnsCheck } from "./dataplane";

const caddy = (answer: HttpAnswer): CaddyProbe => ({ adminUrl: "http://127.0.0.1:2019", config: async () => answer });

describe("caddy-admin", () => {
  it("is ok when the admin API answers with servers; warns when it serves nothing; fails when refused or down", async () => {
    const config = JSON.stringify({ apps: { http: { servers: { http: {}, https: {} } } } });
    expect(await caddyAdminCheck(caddy({ status: 200, body: config }))).toMatchObject({ status: "ok", message: "Caddy answers at http://127.0.0.1:2019 (2 servers)" });
    expect((await caddyAdminCheck(caddy({ status: 200, body: "null" }))).status).toBe("warn");
    const refused = await caddyAdminCheck(caddy({ status: 403, body: "client is not allowed to access from origin" }));
    expect(refused.status).toBe("fail");
    expect(refused.message).toContain("LEVELRAIL_CADDY_ADMIN");
    const down = await caddyAdminCheck(caddy({ error: "ECONNREFUSED" }));
    expect(down).toMatchObject({ status: "fail" });
    expect(down.message).toContain("`npm start` starts it");
  });
});

const entry = (app: string, service: string, appId = `${app}-id`) => ({ appId, app, service, container: `lr-${service}-abc`, port: 8080 });
const state = (services: DataPlaneState["services"]): DataPlaneState => ({ version: 1, generation: 3, services, domains: {} });

function mesh(over: Partial<MeshProbe> = {}): MeshProbe & { asked: string[] } {
  const asked: string[] = [];
  return {
    port: 10053,
    zone: "lr.internal",
    shortName: "lr",
    stateFile: "/d/dataplane/state.json",
    state: () => state({ s1: entry("shop", "web") }),
    replicas: async () => [0],
    queryA: async (port, name) => (asked.push(`${port} ${name}`), { rcode: "NOERROR", addresses: ["10.201.0.2"] }),
    health: async () => ({ status: 200, body: "{}" }),
    asked,
    ...over,
  };
}

describe("mesh-dns", () => {
  it("asks for a mesh name only one service has", () => {
    expect(knownName(state({ a: entry("shop", "web", "1"), b: entry("shop", "web", "2"), c: entry("blog", "api") }), "lr")).toEqual({
      name: "api.blog.lr.internal",
      what: "service blog/api (container lr-api-abc)",
    });
    expect(knownName(state({ a: entry("shop", "web", "1"), b: entry("shop", "web", "2") }), "lr")).toBeNull();
  });

  it("is ok when the name resolves; warns when it answers without an address; fails when it does not answer", async () => {
    const p = mesh();
    expect(await meshDnsCheck(p)).toMatchObject({ status: "ok", message: "answers web.shop.lr.internal → 10.201.0.2 on 127.0.0.1:10053" });
    expect(p.asked).toEqual(["10053 web.shop.lr.internal"]);
    const nx = await meshDnsCheck(mesh({ queryA: async () => ({ rcode: "NXDOMAIN", addresses: [] }) }));
    expect(nx.status).toBe("warn");
    expect(nx.message).toContain("answers web.shop.lr.internal with NXDOMAIN: the service shop/web (container lr-web-abc) is not running");
    const silent = await meshDnsCheck(mesh({ queryA: async () => ({ error: "no answer within 1.5 s" }) }));
    expect(silent.status).toBe("fail");
    expect(silent.message).toContain("does not answer on 127.0.0.1:10053 (no answer within 1.5 s): is it running? `npm start` starts it");
  });

  it("asks every replica (replica r on the port + r): warns when one is down and another answers, fails when none does", async () => {
    const both = mesh({ replicas: async () => [0, 1] });
    expect(await meshDnsCheck(both)).toMatchObject({ status: "ok", message: "answers web.shop.lr.internal → 10.201.0.2 on 127.0.0.1:10053 and 127.0.0.1:10054" });
    expect(both.asked).toEqual(["10053 web.shop.lr.internal", "10054 web.shop.lr.internal"]);
    const one = await meshDnsCheck(mesh({ replicas: async () => [0, 1], queryA: async (port) => (port === 10054 ? { error: "no answer within 1.5 s" } : { rcode: "NOERROR", addresses: ["10.201.0.2"] }) }));
    expect(one.status).toBe("warn");
    expect(one.message).toBe(
      "answers web.shop.lr.internal → 10.201.0.2 on 127.0.0.1:10053; 127.0.0.1:10054 does not answer (no answer within 1.5 s): the engine restarts its container (`docker ps -a`, `docker logs <container>`)",
    );
    const none = await meshDnsCheck(mesh({ replicas: async () => [0, 1], queryA: async () => ({ error: "ECONNREFUSED" }) }));
    expect(none.status).toBe("fail");
  });

  it("with no service to ask for, checks /healthz on the same port", async () => {
    const none = mesh({ state: () => null, queryA: async () => Promise.reject(new Error("must not ask")) });
    expect(await meshDnsCheck(none)).toMatchObject({ status: "ok", message: "the data plane answers on 127.0.0.1:10053 (/healthz); no name to ask: no service runs yet" });
    expect((await meshDnsCheck(mesh({ state: () => state({}), health: async () => ({ error: "ECONNREFUSED" }) }))).status).toBe("fail");
    expect((await meshDnsCheck(mesh({ state: () => state({}), health: async () => ({ status: 500, body: "" }) }))).status).toBe("fail");
    expect((await meshDnsCheck(mesh({ state: () => state({}), replicas: async () => [0, 1], health: async (port) => (port === 10053 ? { status: 200, body: "" } : { error: "ECONNREFUSED" }) }))).status).toBe("warn");
  });

  it("fails when the state file cannot be read", async () => {
    const r = await meshDnsCheck(mesh({ state: () => { throw new SyntaxError("Unexpected token"); } }));
    expect(r.status).toBe("fail");
    expect(r.message).toContain("/d/dataplane/state.json");
  });
});

function db(over: Partial<DbProbe> = {}): DbProbe {
  return {
    where: "127.0.0.1:5432/levelrail",
    version: async () => "PostgreSQL 17.2 on x86_64-pc-linux-gnu",
    applied: async () => [1, 2],
    journal: () => [{ tag: "0000_init", when: 1 }, { tag: "0001_more", when: 2 }],
    leader: async () => ({ pid: 4242, client: "127.0.0.1" }),
    heartbeat: async () => ({ runner: "host:10:ab", leadingForS: 600, passAgeS: 5, resyncSeconds: 30 }),
    backups: async () => ({ now: new Date(), rows: [] }),
    pinned: async () => [],
    ...over,
  };
}
const down = () => Promise.reject(Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));

describe("postgres", () => {
  it("names the server when it answers; fails naming the reason (never the URL's password) when not", async () => {
    expect(await postgresCheck(db())).toMatchObject({ status: "ok", message: "PostgreSQL 17.2 answers at 127.0.0.1:5432/levelrail" });
    const r = await postgresCheck(db({ version: down }));
    expect(r.status).toBe("fail");
    expect(r.message).toContain("ECONNREFUSED");
    expect((await postgresCheck(db({ where: null }))).message).toContain("DATABASE_URL is unset");
  });

  it("leaves what needs the database unchecked (a warning) when it is down", async () => {
    expect(await workerCheck(db({ version: down }), "levelrail.worker.lr")).toMatchObject({ status: "warn", message: "not checked: PostgreSQL does not answer (see postgres)" });
    expect((await backupsCheck(db({ where: null }))).status).toBe("warn");
  });
});

describe("migrations", () => {
  const journal = [{ tag: "0000_init", when: 100 }, { tag: "0001_b", when: 200 }, { tag: "0002_c", when: 300 }];
  it("is current when the newest applied is the journal's last", () => {
    expect(migrationsVerdict(journal, [100, 200, 300])).toMatchObject({ status: "ok", message: "current (3 applied, the last 0002_c)" });
  });
  it("fails naming what is pending, and when none was ever applied", () => {
    const r = migrationsVerdict(journal, [100]);
    expect(r).toMatchObject({ status: "fail", detail: { pending: ["0001_b", "0002_c"] } });
    expect(r.message).toContain("npx levelrail migrate");
    expect(migrationsVerdict(journal, null).status).toBe("fail");
    expect(migrationsVerdict(journal, []).status).toBe("fail");
  });
  it("warns when the database is ahead of this checkout", () => {
    expect(migrationsVerdict(journal, [100, 200, 300, 400]).status).toBe("warn");
  });
});

describe("worker", () => {
  const lock = "levelrail.worker.lr";
  const leader = { pid: 4242, client: null };
  const beat = (passAgeS: number | null, leadingForS = 600) => ({ runner: "host:10:ab", leadingForS, passAgeS, resyncSeconds: 30 });
  it("fails when no session holds the leader lock", () => {
    const r = workerVerdict(lock, null, beat(1));
    expect(r.status).toBe("fail");
    expect(r.message).toContain("no worker leads (no session holds the lock levelrail.worker.lr)");
  });
  it("is ok while passes are recent: within two resync intervals and 10 s", () => {
    expect(workerVerdict(lock, leader, beat(12))).toMatchObject({ status: "ok", message: "a worker leads (database session 4242, host:10:ab); its last pass finished 12 s ago (resync every 30 s)" });
    expect(workerVerdict(lock, leader, beat(70)).status).toBe("ok");
    expect(workerVerdict(lock, leader, beat(null, 20)).status).toBe("ok"); // first pass running
  });
  it("warns when late, fails when stuck (over ten intervals), warns without any record", () => {
    expect(workerVerdict(lock, leader, beat(71)).status).toBe("warn");
    expect(workerVerdict(lock, leader, beat(310)).status).toBe("warn");
    expect(workerVerdict(lock, leader, beat(311)).status).toBe("fail");
    expect(workerVerdict(lock, leader, beat(null, 600)).status).toBe("warn");
    expect(workerVerdict(lock, leader, null).message).toContain("has recorded no pass");
  });
  it("asks the probe for the lock and the heartbeat", async () => {
    expect((await workerCheck(db({ leader: async () => null }), lock)).status).toBe("fail");
    expect((await workerCheck(db(), lock)).status).toBe("ok");
  });
});

describe("backups", () => {
  const now = new Date("2026-12-01T12:00:00Z");
  const ago = (h: number) => new Date(now.getTime() - h * 3_600_000);
  const row = (database: string, cron: string | null, lastVerifiedH: number | null, sinceH = 1000): BackupRow => ({
    database,
    cron,
    scheduleSince: cron ? ago(sinceH) : null,
    createdAt: ago(2000),
    lastVerifiedAt: lastVerifiedH === null ? null : ago(lastVerifiedH),
  });

  it("takes a schedule's interval as its longest gap (a weekday schedule's weekend)", () => {
    expect(scheduleIntervalMs("0 3 * * *", now)).toBe(86_400_000);
    expect(scheduleIntervalMs("0 3 * * 1-5", now)).toBe(3 * 86_400_000);
    expect(scheduleIntervalMs("*/15 * * * *", now)).toBe(900_000);
  });

  it("is ok while every scheduled database's last verified backup is within twice its interval", () => {
    const r = backupsVerdict([row("shop/production/db", "0 3 * * *", 30), row("shop/staging/db", null, null)], now);
    expect(r).toMatchObject({ status: "ok", detail: { databases: 2, scheduled: 1, stale: [] } });
    expect(r.message).toContain("1 without a schedule");
    expect(backupsVerdict([], now).message).toBe("no managed databases");
    expect(backupsVerdict([row("a/b/c", null, null)], now).message).toBe("no database has a backup schedule (1 without one)");
  });

  it("warns naming each database whose last verified backup is too old, or that has none since its schedule was set", () => {
    const r = backupsVerdict([row("shop/production/db", "0 3 * * *", 49), row("blog/production/pg", "0 * * * *", null, 5), row("new/production/pg", "0 3 * * *", null, 10)], now);
    expect(r.status).toBe("warn");
    expect(r.detail?.stale).toEqual([
      "shop/production/db: last verified backup 49 h ago (schedule `0 3 * * *`, every 24 h)",
      "blog/production/pg: no verified backup since its schedule was set 5 h ago (schedule `0 * * * *`, every 60 min)",
    ]);
    expect(r.message).toContain("shop/production/db: last verified backup 49 h ago");
  });
});
