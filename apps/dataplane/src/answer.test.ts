import * as dnsPacket from "dns-packet";
import { describe, expect, it } from "vitest";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { RETIRED_MS, type Scope, answer, indexState } from "./answer";

const zone = "lr.internal";
const state: DataPlaneState = {
  version: 1,
  generation: 3,
  services: {
    s1: { appId: "a1", app: "shop", service: "web", container: "lr-web-111", port: 8080 },
    s2: { appId: "a2", app: "shop", service: "web", container: "lr-web-222", port: 9090 }, // the same names, another environment
    s3: { appId: "a1", app: "shop", service: "api", container: "lr-api-333", port: 3000 },
    // A release on a swarm: two ready tasks on two nodes, and one with none ready (yet).
    s4: { appId: "a4", app: "blog", service: "web", container: "lr-web-444", port: 80, tasks: [{ name: "t1abc", address: "10.234.0.5" }, { name: "t2def", address: "10.234.0.6" }] },
    s5: { appId: "a4", app: "blog", service: "cron", container: "lr-cron-555", port: 80, tasks: [] },
  },
  domains: { "shop.example.com": "s1", "down.example.com": "s9", "blog.example.com": "s4", "soon.example.com": "s5" },
};
const ips: Record<string, string> = { "lr-web-111/a1": "10.201.0.5", "lr-web-222/a2": "10.201.0.70", "lr-api-333/a1": "10.201.0.6" };

const ask = async (name: string, type: "A" | "SRV" | "AAAA", scope: Scope = { kind: "loopback" }, live?: (address: string, port: number) => boolean) => {
  const msg = dnsPacket.encode({ type: "query", id: 9, flags: dnsPacket.RECURSION_DESIRED, questions: [{ type, name }] });
  const reply = await answer(msg, { zone, index: indexState(state), scope, address: async (c, a) => ips[`${c}/${a}`] ?? null, fallbackPort: 10053, ttlSeconds: 1, ...(live ? { live } : {}) });
  const p = dnsPacket.decode(reply!);
  return { rcode: (p.flags ?? 0) & 0xf, answers: p.answers ?? [] };
};

describe("the data plane's answers", () => {
  it("a mesh name on an app network's gateway answers only that app's service", async () => {
    expect((await ask("web.shop.lr.internal", "A", { kind: "app", appId: "a1" })).answers).toMatchObject([{ type: "A", data: "10.201.0.5", ttl: 1 }]);
    expect((await ask("WEB.shop.lr.internal.", "A", { kind: "app", appId: "a2" })).answers).toMatchObject([{ data: "10.201.0.70" }]);
    expect((await ask("api.shop.lr.internal", "A", { kind: "app", appId: "a2" })).rcode).toBe(3);
  });

  it("two apps named alike (two environments), each with a service named alike: each gateway answers its own container only", async () => {
    for (const [appId, own, other] of [["a1", "10.201.0.5", "10.201.0.70"], ["a2", "10.201.0.70", "10.201.0.5"]] as const) {
      const { answers } = await ask("web.shop.lr.internal", "A", { kind: "app", appId });
      const addresses = answers.flatMap((a) => (a.type === "A" ? [a.data] : []));
      expect(addresses).toEqual([own]);
      expect(addresses).not.toContain(other);
    }
    // An app with no such service: not the other environment's.
    expect((await ask("web.shop.lr.internal", "A", { kind: "app", appId: "a3" })).rcode).toBe(3);
  });

  it("on loopback a mesh name two environments share names neither (NXDOMAIN); a unique one answers", async () => {
    expect(await ask("web.shop.lr.internal", "A")).toEqual({ rcode: 3, answers: [] });
    expect((await ask("api.shop.lr.internal", "A")).answers).toMatchObject([{ data: "10.201.0.6" }]);
  });

  it("a domain's SRV names the active container and its port; the container's name resolves to its address", async () => {
    const srv = await ask("shop.example.com._route.lr.internal", "SRV");
    expect(srv.answers).toMatchObject([{ type: "SRV", data: { port: 8080, target: "lr-web-111._ctr.lr.internal" } }]);
    expect((await ask("lr-web-111._ctr.lr.internal", "A")).answers).toMatchObject([{ data: "10.201.0.5" }]);
  });

  it("a swarm release: its mesh name and its domain answer every ready task; a task's name its published address (never inspected)", async () => {
    const a = await ask("web.blog.lr.internal", "A", { kind: "app", appId: "a4" });
    expect(a.answers.flatMap((x) => (x.type === "A" ? [x.data] : []))).toEqual(["10.234.0.5", "10.234.0.6"]);
    const srv = await ask("blog.example.com._route.lr.internal", "SRV");
    expect(srv.answers.flatMap((x) => (x.type === "SRV" ? [x.data] : []))).toEqual([
      { priority: 0, weight: 1, port: 80, target: "t1abc._ctr.lr.internal" },
      { priority: 0, weight: 1, port: 80, target: "t2def._ctr.lr.internal" },
    ]);
    expect((await ask("t2def._ctr.lr.internal", "A")).answers).toMatchObject([{ data: "10.234.0.6" }]);
    // Its service's name is no container to inspect.
    expect((await ask("lr-web-444._ctr.lr.internal", "A")).rcode).toBe(3);
    // No task ready: the fallback page, and the mesh name names nothing.
    expect((await ask("soon.example.com._route.lr.internal", "SRV")).answers).toMatchObject([{ data: { target: "_fallback._ctr.lr.internal" } }]);
    expect((await ask("cron.blog.lr.internal", "A", { kind: "app", appId: "a4" })).rcode).toBe(3);
  });

  it("a domain nobody serves goes to the data plane's own fallback page on loopback", async () => {
    for (const d of ["down.example.com", "nobody.example.com"]) {
      expect((await ask(`${d}._route.lr.internal`, "SRV")).answers).toMatchObject([{ data: { port: 10053, target: "_fallback._ctr.lr.internal" } }]);
    }
    expect((await ask("_fallback._ctr.lr.internal", "A")).answers).toMatchObject([{ data: "127.0.0.1" }]);
  });

  it("routes and container names are for Caddy on loopback only, never for app containers", async () => {
    expect((await ask("shop.example.com._route.lr.internal", "SRV", { kind: "app", appId: "a1" })).rcode).toBe(3);
    expect((await ask("lr-web-111._ctr.lr.internal", "A", { kind: "app", appId: "a1" })).rcode).toBe(3);
  });

  it("refuses names outside its zone (the next resolver answers), says NODATA for other types, ignores garbage", async () => {
    expect((await ask("example.com", "A")).rcode).toBe(5);
    expect(await ask("api.shop.lr.internal", "AAAA")).toEqual({ rcode: 0, answers: [] });
    expect(await answer(Buffer.from("garbage"), { zone, index: indexState(state), scope: { kind: "loopback" }, address: async () => null, fallbackPort: 1, ttlSeconds: 1 })).toBeNull();
  });

  it("a swarm task that does not answer its probes is left out of the route and the mesh name, unless none answers", async () => {
    const t2Down = (address: string, port: number) => !(address === "10.234.0.6" && port === 80);
    const route = await ask("blog.example.com._route.lr.internal", "SRV", { kind: "loopback" }, t2Down);
    expect(route.answers.map((a) => (a.type === "SRV" ? a.data.target : ""))).toEqual(["t1abc._ctr.lr.internal"]);
    const mesh = await ask("web.blog.lr.internal", "A", { kind: "app", appId: "a4" }, t2Down);
    expect(mesh.answers.map((a) => (a.type === "A" ? a.data : ""))).toEqual(["10.234.0.5"]);
    // None answers: every task, as published (a probe is no reason to serve nothing).
    const none = await ask("blog.example.com._route.lr.internal", "SRV", { kind: "loopback" }, () => false);
    expect(none.answers).toHaveLength(2);
  });
});

describe("a switch: the container (or task) just made inactive", () => {
  const next: DataPlaneState = {
    ...state,
    generation: 4,
    services: {
      ...state.services,
      s1: { ...state.services.s1!, container: "lr-web-999" },
      s4: { ...state.services.s4!, tasks: [{ name: "t3ghi", address: "10.234.0.7" }] },
    },
  };
  const at = (index: ReturnType<typeof indexState>, name: string) =>
    answer(dnsPacket.encode({ type: "query", id: 1, flags: 0, questions: [{ type: "A", name }] }), {
      zone,
      index,
      scope: { kind: "loopback" },
      address: async (c, a) => ({ ...ips, "lr-web-999/a1": "10.201.0.9" } as Record<string, string>)[`${c}/${a}`] ?? null,
      fallbackPort: 10053,
      ttlSeconds: 1,
    }).then((r) => {
      const p = dnsPacket.decode(r!);
      return { rcode: (p.flags ?? 0) & 0xf, addresses: (p.answers ?? []).flatMap((x) => (x.type === "A" ? [x.data] : [])) };
    });

  it("keeps answering its own name for a few seconds (Caddy's cached route may still name it), while routes name the new one", async () => {
    const index = indexState(next, indexState(state));
    expect(await at(index, "lr-web-111._ctr.lr.internal")).toEqual({ rcode: 0, addresses: ["10.201.0.5"] });
    expect(await at(index, "lr-web-999._ctr.lr.internal")).toEqual({ rcode: 0, addresses: ["10.201.0.9"] });
    expect(await at(index, "t1abc._ctr.lr.internal")).toEqual({ rcode: 0, addresses: ["10.234.0.5"] });
    expect(await at(index, "t3ghi._ctr.lr.internal")).toEqual({ rcode: 0, addresses: ["10.234.0.7"] });
    // A later state change keeps it too, within the time.
    expect(await at(indexState(next, index), "lr-web-111._ctr.lr.internal")).toEqual({ rcode: 0, addresses: ["10.201.0.5"] });
  });

  it("not once that time has passed, nor once the container is gone (no address)", async () => {
    const old = indexState(next, indexState(state), Date.now() - RETIRED_MS - 1);
    expect((await at(old, "lr-web-111._ctr.lr.internal")).rcode).toBe(3);
    expect((await at(old, "t1abc._ctr.lr.internal")).rcode).toBe(3);
    expect((await at(indexState(next, old), "lr-web-111._ctr.lr.internal")).rcode).toBe(3);
    // Within the time, a container the engine no longer has (no address) answers nothing.
    expect((await at(indexState(state, indexState({ ...state, services: { ...state.services, s9: { appId: "a9", app: "x", service: "y", container: "lr-gone-1", port: 1 } } })), "lr-gone-1._ctr.lr.internal")).rcode).toBe(3);
  });
});
