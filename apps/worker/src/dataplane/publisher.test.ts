import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ActiveEntry } from "@levelrail/spec/dataplane";
import { StatePublisher } from "./publisher";

const entry = (container: string): ActiveEntry => ({ appId: "a", app: "shop", service: "web", container, port: 8080 });
const fresh = () => join(mkdtempSync(join(tmpdir(), "lr-pub-")), "state.json");

describe("the data plane's state publisher", () => {
  it("knows from which generation each service's entry is as it is now, while other services keep changing", async () => {
    const p = new StatePublisher(fresh());
    await p.setActive("s1", entry("web-1"));
    expect(p.generationOf("s1")).toBe(1);
    // Other services change: s1's entry still dates from generation 1 (an edge at 1 routes it right).
    await p.setActive("s2", entry("api-1"));
    await p.setDomains({ "shop.test": "s1" });
    expect(p.current().generation).toBe(3);
    expect(p.generationOf("s1")).toBe(1);
    expect(p.generationOf("s2")).toBe(2);
    // The same value again writes nothing and dates nothing anew.
    await p.setActive("s1", entry("web-1"));
    expect([p.current().generation, p.generationOf("s1")]).toEqual([3, 1]);
    // A change not written yet: no edge can have it.
    const written = p.setActive("s1", entry("web-2"));
    expect(p.generationOf("s1")).toBe(Number.MAX_SAFE_INTEGER);
    await written;
    expect(p.generationOf("s1")).toBe(4);
    // A service removed by a resync is dated by the write that dropped it.
    await p.retain(new Set(["s1"]));
    expect(p.generationOf("s2")).toBe(5);
  });

  it("a publisher started on an existing file dates the entries it did not write by the file's generation", async () => {
    const file = fresh();
    const first = new StatePublisher(file);
    await first.setActive("s1", entry("web-1"));
    await first.setActive("s2", entry("api-1"));
    const again = new StatePublisher(file);
    expect(JSON.parse(readFileSync(file, "utf8")).generation).toBe(2);
    expect(again.generationOf("s1")).toBe(2);
  });
});
