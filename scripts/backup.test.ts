// The copies of the panel's database taken before migrations: private files in a private data dir,
// and the database password never on a command line (`ps` shows every user's argv).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { copyCluster, dumpExternal, pgDumpCommand } from "./lib/backup.mjs";
import { resolveDataDir } from "./lib/paths.mjs";

const mode = (p: string) => statSync(p).mode & 0o777;
const URL_WITH_PASSWORD = "postgres://panel:s%40cret-pw@127.0.0.1:5432/levelrail?sslmode=disable";

describe("the panel's database copies", () => {
  let dir: string;
  let path: string | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "lr-backup-"));
    path = process.env.PATH;
  });
  afterEach(() => {
    process.env.PATH = path;
    rmSync(dir, { recursive: true, force: true });
  });

  it("pg_dump gets the password in PGPASSWORD, never in its arguments", () => {
    const { args, env } = pgDumpCommand(URL_WITH_PASSWORD, "/x/out.dump");
    expect(args.join(" ")).not.toContain("cret-pw");
    expect(args).toContain("--dbname=postgres://panel@127.0.0.1:5432/levelrail?sslmode=disable");
    expect(env.PGPASSWORD).toBe("s@cret-pw");
    // A password given as a query parameter is moved out of the arguments as well.
    const q = pgDumpCommand("postgres://panel@db/levelrail?password=qq-secret&sslmode=disable", "/x/out.dump");
    expect(q.args.join(" ")).not.toContain("qq-secret");
    expect(q.env.PGPASSWORD).toBe("qq-secret");
    expect(pgDumpCommand("postgres://panel@db/levelrail", "/x/o").env.PGPASSWORD).toBeUndefined();
  });

  it("a dump is written 0600 into a 0700 backups dir, by a pg_dump that saw no password in argv", () => {
    const bin = join(dir, "bin");
    mkdirSync(bin);
    const seen = join(dir, "seen");
    // A stand-in pg_dump: records its arguments, the password it got, and the mode of the file it writes into.
    writeFileSync(
      join(bin, "pg_dump"),
      `#!/bin/sh\nfor a in "$@"; do echo "arg $a"; case "$a" in --file=*) f="\${a#--file=}";; esac; done > "${seen}"\necho "pw $PGPASSWORD" >> "${seen}"\necho "mode $(stat -c %a "$f")" >> "${seen}"\necho dump > "$f"\n`,
      { mode: 0o755 },
    );
    process.env.PATH = `${bin}:${path ?? ""}`;
    const dataDir = join(dir, "data");
    mkdirSync(dataDir, { mode: 0o755 });
    const dest = dumpExternal(dataDir, URL_WITH_PASSWORD);
    expect(dest).not.toBeNull();
    const out = readFileSync(seen, "utf8");
    expect(out.split("\n").filter((l) => l.startsWith("arg ")).join("\n")).not.toContain("cret-pw");
    expect(out).toContain("pw s@cret-pw\n");
    expect(out).toContain("mode 600\n");
    expect(mode(dest!)).toBe(0o600);
    expect(mode(join(dataDir, "backups"))).toBe(0o700);
  });

  it("a copied cluster is 0600 files in 0700 dirs, however the source was", () => {
    const pg = join(dir, "pg");
    mkdirSync(join(pg, "base"), { recursive: true });
    writeFileSync(join(pg, "PG_VERSION"), "17\n", { mode: 0o644 });
    writeFileSync(join(pg, "base", "1"), "rows", { mode: 0o644 });
    chmodSync(join(pg, "base"), 0o755);
    const dataDir = join(dir, "data");
    mkdirSync(dataDir, { mode: 0o755 });
    const dest = copyCluster(dataDir, pg)!;
    expect(mode(join(dataDir, "backups"))).toBe(0o700);
    expect(mode(join(dest, ".."))).toBe(0o700);
    expect(mode(dest)).toBe(0o700);
    expect(mode(join(dest, "base"))).toBe(0o700);
    expect(mode(join(dest, "PG_VERSION"))).toBe(0o600);
    expect(mode(join(dest, "base", "1"))).toBe(0o600);
  });

  it("the data dir is created 0700; an existing one keeps its mode (a running cluster's user keeps its way in)", () => {
    const fresh = resolveDataDir(join(dir, "fresh"), ".unused");
    expect(mode(fresh)).toBe(0o700);
    const reachable = join(dir, "reachable");
    mkdirSync(reachable, { mode: 0o701 });
    chmodSync(reachable, 0o701);
    expect(mode(resolveDataDir(reachable, ".unused"))).toBe(0o701);
  });
});
