import { describe, expect, it } from "vitest";
import { SHARED_TENANT } from "./fair-queue";
import { Runner } from "./runner";
import { keyTenants, serviceTenants } from "./tenants";

const A = "00000000-0000-4000-8000-00000000000a";
const B = "00000000-0000-4000-8000-00000000000b";

describe("serviceTenants", () => {
  it("answers a service key's organization, looking it up once", async () => {
    const lookups: string[] = [];
    const tenantOf = serviceTenants(async (id) => {
      lookups.push(id);
      return id === A ? "org-a" : null;
    });
    expect(await tenantOf(`service:${A}`)).toBe("org-a");
    // Cached: answered at once, no promise.
    expect(tenantOf(`service:${A}`)).toBe("org-a");
    expect(lookups).toEqual([A]);
  });

  const shared: [string, string][] = [
    ["a whole-fleet key", "ingress"],
    ["another controller's key", "networks"],
    ["a service key that is no id", "service:web"],
    ["a foreign payload", "nonsense"],
  ];
  for (const [name, key] of shared) {
    it(`puts ${name} in the shared tenant without a lookup`, () => {
      const tenantOf = serviceTenants(() => Promise.reject(new Error("no lookup expected")));
      expect(tenantOf(key)).toBe(SHARED_TENANT);
    });
  }

  it("puts a service that is gone, or whose lookup failed, in the shared tenant and asks again next time", async () => {
    let calls = 0;
    const tenantOf = serviceTenants(async () => {
      calls++;
      if (calls === 1) throw new Error("database down");
      return calls === 2 ? null : "org-b";
    });
    expect(await tenantOf(`service:${B}`)).toBe(SHARED_TENANT);
    expect(await tenantOf(`service:${B}`)).toBe(SHARED_TENANT);
    expect(await tenantOf(`service:${B}`)).toBe("org-b");
  });
});

describe("keyTenants", () => {
  it("answers a database key's and a backup key's organization, each looked up once", async () => {
    const asked: string[] = [];
    const tenantOf = keyTenants({
      database: async (id) => (asked.push(`db ${id}`), "org-a"),
      backup: async (id) => (asked.push(`backup ${id}`), "org-b"),
    });
    expect(await tenantOf(`database:${A}`)).toBe("org-a");
    expect(await tenantOf(`backup:${B}`)).toBe("org-b");
    expect(tenantOf(`database:${A}`)).toBe("org-a");
    expect(tenantOf(`backup:${B}`)).toBe("org-b");
    expect(asked).toEqual([`db ${A}`, `backup ${B}`]);
  });

  it("keeps a database and a backup of the same id apart, and a kind with no lookup in the shared tenant", async () => {
    const tenantOf = keyTenants({ database: async () => "org-a" });
    expect(await tenantOf(`database:${A}`)).toBe("org-a");
    expect(tenantOf(`backup:${A}`)).toBe(SHARED_TENANT);
    expect(tenantOf(`service:${A}`)).toBe(SHARED_TENANT);
    expect(tenantOf("images")).toBe(SHARED_TENANT);
    expect(tenantOf("database:not-an-id")).toBe(SHARED_TENANT);
  });
});

describe("the database runner's slots with keyTenants", () => {
  it("gives another organization's database the next slot ahead of one organization's queued backlog", async () => {
    const ids = (n: number, org: string) => Array.from({ length: n }, (_, i) => `0000000${i}-0000-4000-8000-0000000000${org}`);
    const stuck = ids(6, "aa"); // org A: six databases, each pass held until the test lets it go
    const [other] = ids(1, "bb"); // org B: one database
    const started: string[] = [];
    const release = new Map<string, () => void>();
    const runner = new Runner(
      {
        name: "database",
        reconcile: (key) => {
          started.push(key);
          return new Promise<void>((resolve) => release.set(key, resolve));
        },
      },
      { concurrency: 4, tenantOf: keyTenants({ database: async (id) => (id.endsWith("aa") ? "org-a" : "org-b") }) },
    );
    for (const id of stuck) runner.enqueue(`database:${id}`);
    await new Promise((r) => setTimeout(r, 10));
    runner.enqueue(`database:${other}`);
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toHaveLength(4); // org A holds every slot
    release.get(started[0]!)!(); // one of A's passes ends (an exec past its deadline)
    await new Promise((r) => setTimeout(r, 10));
    // B's database goes next, not A's fifth one queued before it.
    expect(started[4]).toBe(`database:${other}`);
    for (const key of started) release.get(key)?.();
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 5));
      for (const key of started) release.get(key)?.();
    }
    await runner.stop();
  });
});

describe("the build runner's slots with keyTenants", () => {
  it("gives another organization's build the next build slot while one organization's builds hold them all", async () => {
    const ids = (n: number, org: string) => Array.from({ length: n }, (_, i) => `0000000${i}-0000-4000-8000-0000000000${org}`);
    const long = ids(5, "aa"); // org A: five long builds
    const [other] = ids(1, "bb"); // org B: one build, asked for after them
    const started: string[] = [];
    const release = new Map<string, () => void>();
    const runner = new Runner(
      {
        name: "build",
        reconcile: (key) => {
          started.push(key);
          return new Promise<void>((resolve) => release.set(key, resolve));
        },
      },
      // The build runner's slots (LEVELRAIL_BUILD_SLOTS, 2 by default); a build holds its slot while it runs.
      { concurrency: 2, tenantOf: keyTenants({ build: async (id) => (id.endsWith("aa") ? "org-a" : "org-b") }) },
    );
    for (const id of long) runner.enqueue(`build:${id}`);
    await new Promise((r) => setTimeout(r, 10));
    runner.enqueue(`build:${other}`);
    await new Promise((r) => setTimeout(r, 10));
    expect(started).toHaveLength(2);
    release.get(started[0]!)!();
    await new Promise((r) => setTimeout(r, 10));
    expect(started[2]).toBe(`build:${other}`);
    for (let i = 0; i < 6; i++) {
      for (const key of started) release.get(key)?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    await runner.stop();
  });
});
