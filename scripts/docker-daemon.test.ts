import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { enableLiveRestore } from "./lib/docker-daemon.mjs";

describe("enableLiveRestore (on a temporary daemon.json, never the machine's)", () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lr-daemon-json-"));
    file = join(dir, "etc", "docker", "daemon.json");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const read = () => JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;

  it("creates the file and its folder when missing", () => {
    expect(enableLiveRestore(file)).toBe("created");
    expect(read()).toEqual({ "live-restore": true });
    expect(statSync(file).mode & 0o777).toBe(0o644);
  });

  it("adds the key and keeps every other key and the file's mode", () => {
    enableLiveRestore(file);
    writeFileSync(file, JSON.stringify({ "log-driver": "journald", "default-address-pools": [{ base: "10.9.0.0/16", size: 24 }] }));
    chmodSync(file, 0o600);
    expect(enableLiveRestore(file)).toBe("added");
    expect(read()).toEqual({ "log-driver": "journald", "default-address-pools": [{ base: "10.9.0.0/16", size: 24 }], "live-restore": true });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it("treats an empty file as an empty config", () => {
    enableLiveRestore(file);
    writeFileSync(file, "\n");
    expect(enableLiveRestore(file)).toBe("added");
    expect(read()).toEqual({ "live-restore": true });
  });

  it("leaves a file alone that already decides live-restore, or that is not a JSON object", () => {
    enableLiveRestore(file);
    const cases: [string, string][] = [
      ['{"live-restore": true, "debug": true}', "already"],
      ['{"live-restore": false}', "kept-off"],
      ["{ not json", "invalid"],
      ["[1, 2]", "invalid"],
    ];
    for (const [text, outcome] of cases) {
      writeFileSync(file, text);
      expect(enableLiveRestore(file)).toBe(outcome);
      expect(readFileSync(file, "utf8")).toBe(text);
    }
  });
});
