import { mkdtempSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { DataPlaneState } from "@levelrail/spec/dataplane";
import { StateFollower } from "./state";

const state = (generation: number): DataPlaneState => ({ version: 1, generation, services: {}, domains: { [`g${generation}.localhost`]: "s1" } });
const write = (file: string, body: string) => {
  writeFileSync(`${file}.tmp`, body);
  renameSync(`${file}.tmp`, file);
};

describe("the state follower", () => {
  it("applies each new generation and keeps the last good state when the file is broken or missing", async () => {
    const file = join(mkdtempSync(join(tmpdir(), "lr-state-")), "state.json");
    const seen: number[] = [];
    const f = new StateFollower(file, (s) => seen.push(s.generation));
    f.start(20);
    write(file, JSON.stringify(state(1)));
    await expect.poll(() => seen).toEqual([1]);
    write(file, "{ not json");
    write(file, JSON.stringify({ version: 1, generation: 2 })); // invalid: no services
    await new Promise((r) => setTimeout(r, 100));
    expect(f.state.generation).toBe(1);
    write(file, JSON.stringify(state(3)));
    await expect.poll(() => seen).toEqual([1, 3]);
    f.stop();
  });
});
