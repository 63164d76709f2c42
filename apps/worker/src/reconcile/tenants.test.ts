import { describe, expect, it } from "vitest";
import { SHARED_TENANT } from "./fair-queue";
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
