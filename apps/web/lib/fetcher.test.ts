import { describe, expect, it } from "vitest";
import { ApiError, ValidatedCache, api } from "./fetcher";

interface Sent {
  url: string;
  method: string;
  ifNoneMatch: string | null;
  cache: RequestCache | undefined;
}

/** A fake fetch answering from a script, recording what each request carried. */
function server(answers: Array<() => Response>) {
  const sent: Sent[] = [];
  const fake: typeof fetch = (input, init) => {
    const headers = new Headers(init?.headers);
    sent.push({ url: String(input), method: init?.method ?? "GET", ifNoneMatch: headers.get("if-none-match"), cache: init?.cache });
    const next = answers.shift();
    if (!next) throw new Error("no answer scripted");
    return Promise.resolve(next());
  };
  return { sent, fetch: fake };
}

const ok = (body: unknown, etag?: string) => () =>
  new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json", ...(etag ? { etag } : {}) } });
const notModified = (etag: string) => () => new Response(null, { status: 304, headers: { etag } });

describe("api: conditional GETs", () => {
  it("sends the ETag it holds and answers the kept body, the same object, on 304", async () => {
    const s = server([ok([{ name: "web" }], '"v1"'), notModified('"v1"')]);
    const deps = { fetch: s.fetch, cache: new ValidatedCache() };
    const first = await api<{ name: string }[]>("/services", {}, deps);
    const second = await api<{ name: string }[]>("/services", {}, deps);
    expect(second).toBe(first);
    expect(second).toEqual([{ name: "web" }]);
    expect(s.sent.map((r) => r.ifNoneMatch)).toEqual([null, '"v1"']);
    expect(s.sent.every((r) => r.url === "/api/v1/services" && r.cache === "no-store")).toBe(true);
  });

  it("takes a changed body and its new ETag", async () => {
    const s = server([ok(["a"], '"v1"'), ok(["b"], '"v2"'), notModified('"v2"')]);
    const deps = { fetch: s.fetch, cache: new ValidatedCache() };
    expect(await api("/services", {}, deps)).toEqual(["a"]);
    expect(await api("/services", {}, deps)).toEqual(["b"]);
    expect(await api("/services", {}, deps)).toEqual(["b"]);
    expect(s.sent.map((r) => r.ifNoneMatch)).toEqual([null, '"v1"', '"v2"']);
  });

  it("keeps a tag per URL and none for answers without one or for other methods", async () => {
    const s = server([ok(["a"], '"a"'), ok(["x"]), ok({ id: 1 }), ok(["a"], '"a"'), ok(["x"])]);
    const deps = { fetch: s.fetch, cache: new ValidatedCache() };
    await api("/services", {}, deps);
    await api("/orgs", {}, deps);
    await api("/services", { method: "POST", body: { name: "web" } }, deps);
    await api("/services", {}, deps);
    await api("/orgs", {}, deps);
    expect(s.sent.map((r) => [r.method, r.url, r.ifNoneMatch])).toEqual([
      ["GET", "/api/v1/services", null],
      ["GET", "/api/v1/orgs", null],
      ["POST", "/api/v1/services", null],
      ["GET", "/api/v1/services", '"a"'],
      ["GET", "/api/v1/orgs", null],
    ]);
  });

  it("forgets the kept body after an error answer", async () => {
    const s = server([
      ok(["a"], '"a"'),
      () => new Response(JSON.stringify({ error: { code: "unavailable", message: "down" } }), { status: 503 }),
      ok(["a"], '"a"'),
    ]);
    const deps = { fetch: s.fetch, cache: new ValidatedCache() };
    await api("/services", {}, deps);
    await expect(api("/services", {}, deps)).rejects.toBeInstanceOf(ApiError);
    await api("/services", {}, deps);
    expect(s.sent.map((r) => r.ifNoneMatch)).toEqual([null, '"a"', null]);
  });
});

describe("ValidatedCache", () => {
  it("keeps the most recently used 100 URLs", () => {
    const cache = new ValidatedCache();
    for (let i = 0; i < 101; i++) cache.set(`/u${i}`, { etag: `"${i}"`, body: i });
    expect(cache.get("/u0")).toBeUndefined();
    expect(cache.get("/u1")?.body).toBe(1);
    expect(cache.get("/u100")?.body).toBe(100);
  });
});
