import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { StatusRefused, listOpenRequests, onProviderApi, openRequestsUrl, postStatus, statusRequest, statusUrlOf } from "./provider-api";

const SHA = "b".repeat(40);

describe("provider API requests", () => {
  it("lists open requests in each provider's words", () => {
    expect(openRequestsUrl({ provider: "github", url: "https://api.github.com/" }, "acme/shop", 2, 50)).toBe("https://api.github.com/repos/acme/shop/pulls?state=open&per_page=50&page=2");
    expect(openRequestsUrl({ provider: "gitea", url: "https://gitea.example.com/api/v1" }, "acme/shop", 1, 50)).toBe("https://gitea.example.com/api/v1/repos/acme/shop/pulls?state=open&limit=50&page=1");
    expect(openRequestsUrl({ provider: "gitlab", url: "https://gitlab.example.com/api/v4" }, "group/sub/shop", 1, 50)).toBe(
      "https://gitlab.example.com/api/v4/projects/group%2Fsub%2Fshop/merge_requests?state=opened&per_page=50&page=1",
    );
  });
  it("lists every page of open requests; more than it reads is an error, never a shorter list taken as complete (the sweep would close the rest)", async () => {
    let total = 0;
    const server = createServer((req, res) => {
      const page = Number(new URL(req.url!, "http://x").searchParams.get("page"));
      const items = Array.from({ length: Math.max(0, Math.min(50, total - (page - 1) * 50)) }, (_, i) => ({ number: (page - 1) * 50 + i + 1 }));
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(items));
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    try {
      const api = { provider: "github" as const, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, token: null };
      const call = { policy: { allowPrivate: true }, timeoutMs: 2000 };
      total = 120;
      expect((await listOpenRequests(api, "acme/shop", call)).size).toBe(120);
      total = 1000;
      await expect(listOpenRequests(api, "acme/shop", call)).rejects.toThrow("the list is incomplete");
      total = 5000;
      await expect(listOpenRequests(api, "acme/shop", call)).rejects.toThrow("more than 1000 open requests of acme/shop");
    } finally {
      server.close();
    }
  });
  it("posts a status as JSON to GitHub and Gitea, in GitLab's query words to GitLab", () => {
    const gh = statusUrlOf({ provider: "gitea", url: "https://gitea.example.com/api/v1" }, "acme/shop", SHA);
    expect(gh).toBe(`https://gitea.example.com/api/v1/repos/acme/shop/statuses/${SHA}`);
    expect(statusRequest(gh, "failure", "https://pr-1.p.example.com", "failed")).toEqual({
      url: gh,
      body: { state: "failure", target_url: "https://pr-1.p.example.com", description: "failed", context: "levelrail/preview" },
    });
    const gl = statusUrlOf({ provider: "gitlab", url: "https://gitlab.example.com/api/v4" }, "acme/shop", SHA);
    const r = statusRequest(gl, "failure", "https://pr-1.p.example.com", "failed");
    expect(r.body).toBeNull();
    expect(new URL(r.url).pathname).toBe(`/api/v4/projects/acme%2Fshop/statuses/${SHA}`);
    expect(Object.fromEntries(new URL(r.url).searchParams)).toEqual({ state: "failed", target_url: "https://pr-1.p.example.com", description: "failed", name: "levelrail/preview" });
  });
  it("a status goes only to the source's own provider API: another host, port or scheme is refused before any connection", async () => {
    const api = { provider: "github" as const, url: "https://api.github.com", token: "t0ken-never-sent" };
    expect(onProviderApi(statusUrlOf(api, "acme/shop", SHA), api)).toBe(true);
    expect(onProviderApi(`https://attacker.example/repos/acme/shop/statuses/${SHA}`, api)).toBe(false);
    expect(onProviderApi(`https://api.github.com:8443/repos/acme/shop/statuses/${SHA}`, api)).toBe(false);
    expect(onProviderApi(`http://api.github.com/repos/acme/shop/statuses/${SHA}`, api)).toBe(false);
    expect(onProviderApi(`https://user:pw@api.github.com/repos/acme/shop/statuses/${SHA}`, api)).toBe(false);
    expect(onProviderApi(`https://gitea.example.com/elsewhere/repos/a/b/statuses/${SHA}`, { url: "https://gitea.example.com/api/v1" })).toBe(false);
    expect(onProviderApi("not a url", api)).toBe(false);
    // Refused before connecting: the policy would allow loopback, and nothing listens on port 9.
    const call = { policy: { allowPrivate: true }, timeoutMs: 2000 };
    const refused = await postStatus(`http://127.0.0.1:9/repos/acme/shop/statuses/${SHA}`, api, "pending", "http://pr-1.p.localhost", "x", call).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(StatusRefused);
    expect((refused as StatusRefused).final).toBe(true);
    expect((refused as Error).message).toContain("not on the source's provider API");
    expect((refused as Error).message).not.toContain(api.token);
    const none = await postStatus(`http://127.0.0.1:9/repos/acme/shop/statuses/${SHA}`, null, "pending", "http://pr-1.p.localhost", "x", call).catch((e: unknown) => e);
    expect(none).toBeInstanceOf(StatusRefused);
  });
});
