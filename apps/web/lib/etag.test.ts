import { describe, expect, it } from "vitest";
import { conditionalJson, etagOf, noneMatch, publicDocument } from "./etag";

const get = (headers: Record<string, string> = {}) => new Request("http://panel.test/api/v1/services", { headers });

describe("etagOf", () => {
  it("is a strong, quoted tag that changes with the body and only with it", () => {
    const tag = etagOf('[{"name":"web"}]');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(etagOf('[{"name":"web"}]')).toBe(tag);
    expect(etagOf('[{"name":"api"}]')).not.toBe(tag);
  });
});

describe("noneMatch", () => {
  const tag = etagOf("x");
  it("matches the tag itself, `*`, a tag in a list, and a weak copy of it", () => {
    expect(noneMatch(tag, tag)).toBe(true);
    expect(noneMatch("*", tag)).toBe(true);
    expect(noneMatch(`"other", ${tag}`, tag)).toBe(true);
    expect(noneMatch(`W/${tag}`, tag)).toBe(true);
  });
  it("does not match no header or another tag", () => {
    expect(noneMatch(null, tag)).toBe(false);
    expect(noneMatch('"other"', tag)).toBe(false);
    expect(noneMatch("", tag)).toBe(false);
  });
});

describe("conditionalJson", () => {
  const data = [{ name: "web", phase: "running" }];

  it("answers the JSON with its ETag when the request holds none", async () => {
    const res = conditionalJson(get(), data);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(etagOf(JSON.stringify(data)));
    expect(res.headers.get("cache-control")).toBe("private, no-cache");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(await res.json()).toEqual(data);
  });

  it("answers 304 with no body when If-None-Match holds the same body's tag", async () => {
    const tag = conditionalJson(get(), data).headers.get("etag") ?? "";
    const res = conditionalJson(get({ "if-none-match": tag }), data);
    expect(res.status).toBe(304);
    expect(res.headers.get("etag")).toBe(tag);
    expect(await res.text()).toBe("");
  });

  it("answers the new body once the data changed", async () => {
    const tag = conditionalJson(get(), data).headers.get("etag") ?? "";
    const changed = [{ name: "web", phase: "deploying" }];
    const res = conditionalJson(get({ "if-none-match": tag }), changed);
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).not.toBe(tag);
    expect(await res.json()).toEqual(changed);
  });
});

describe("publicDocument", () => {
  it("builds once, answers with a public five-minute cache and its type, and 304 to a client holding it", async () => {
    let built = 0;
    const handler = publicDocument(() => ({ n: ++built }), "application/schema+json");
    const first = handler(new Request("http://x/doc"));
    expect(first.status).toBe(200);
    expect(first.headers.get("content-type")).toBe("application/schema+json; charset=utf-8");
    expect(first.headers.get("cache-control")).toBe("public, max-age=300");
    expect(await first.json()).toEqual({ n: 1 });
    const again = handler(new Request("http://x/doc", { headers: { "if-none-match": first.headers.get("etag")! } }));
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
    expect(handler(new Request("http://x/doc")).headers.get("etag")).toBe(first.headers.get("etag"));
    expect(built).toBe(1);
  });
});
