// The installed web app's container as the engine runs it (finding: it ran as root with the
// engine's socket folder and saw the SMTP password in its environment): created from `webSpec`
// on a real engine, over a data dir the installer's own steps prepared, with only its command
// swapped for a probe (the real one needs a production build). Needs root and the engine.
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureMasterKeyFile } from "../lib/paths.mjs";
import { installConfig } from "./config";
import { ensurePanelNodeImage } from "./images";
import { grantWebSecrets, writeSmtpUrlFile } from "./install";
import { webSpec } from "./specs";

const socket = (process.env.DOCKER_HOST ?? "unix:///var/run/docker.sock").replace(/^unix:\/\//, "");
const canRun = process.getuid?.() === 0 && existsSync(socket);
const short = "lrwebuser";
const SMTP_PASSWORD = "pw-of-the-smtp-server-4412";
const docker = new Docker({ socketPath: socket });
const dir = mkdtempSync("/tmp/lr-web-user-");
const dataDir = join(dir, "data");
const release = { id: "probe", dir: join(dir, "release"), mountAt: `/srv/${short}-release` };

/** What the probe reports, from inside the container, as the web app's own user. */
const PROBE = `
const fs = require("node:fs"), http = require("node:http");
const read = (f) => { try { return fs.readFileSync(f, "utf8").length > 0; } catch { return false; } };
const sock = process.env.DOCKER_HOST.replace(/^unix:\\/\\//, "");
http.get({ socketPath: sock, path: "/_ping", agent: false }, (r) => { r.resume(); done(r.statusCode); }).on("error", (e) => done(String(e.code)));
function done(ping) {
  console.log(JSON.stringify({ uid: process.getuid(), gid: process.getgid(), ping,
    masterKey: read("/var/lib/levelrail/master.key"), pgPassword: read(process.env.DATABASE_PASSWORD_FILE),
    smtpUrl: read(process.env.LEVELRAIL_SMTP_URL_FILE || "/nonexistent") }));
  process.exit(0);
}`;

describe.skipIf(!canRun)("the installed web app's container", () => {
  let image = "";
  beforeAll(async () => {
    mkdirSync(dataDir, { mode: 0o700 });
    mkdirSync(join(release.dir, "apps", "web", ".next", "cache"), { recursive: true });
    // the installer's steps over the data dir, as `install` runs them
    ensureMasterKeyFile(dataDir);
    writeFileSync(join(dataDir, "pg-password"), "pg-pw-of-the-test\n", { mode: 0o600 });
    writeSmtpUrlFile(dataDir, `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:2525`);
    grantWebSecrets(dataDir);
    image = await ensurePanelNodeImage(docker, short, () => {});
  }, 300_000);

  afterAll(async () => {
    await docker.getContainer(`${short}-panel-web`).remove({ force: true }).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });

  it("runs as a user of its own, never root, reads its secret files and the engine, and shows no SMTP password in docker inspect", async () => {
    const cfg = installConfig({ LEVELRAIL_SHORT_NAME: short, PORT: "3999", DOCKER_HOST: `unix://${socket}`, LEVELRAIL_SMTP_URL: `smtp://mailer:${SMTP_PASSWORD}@127.0.0.1:2525` }, dataDir);
    const spec = webSpec(cfg, image, release, { engineGid: statSync(socket).gid });
    await docker.getContainer(spec.name).remove({ force: true }).catch(() => {});
    const created = await docker.createContainer({ ...spec.create, name: spec.name, Cmd: [process.execPath, "-e", PROBE], HostConfig: { ...spec.create.HostConfig, RestartPolicy: { Name: "no" } } });
    await created.start();
    const exit = (await created.wait()) as { StatusCode: number };
    const logs = (await created.logs({ stdout: true, stderr: true })).toString("utf8");
    expect(exit.StatusCode, logs).toBe(0);
    const report = JSON.parse(logs.slice(logs.indexOf("{"), logs.lastIndexOf("}") + 1)) as Record<string, unknown>;
    expect(report.uid).not.toBe(0);
    expect(report.gid).not.toBe(0);
    expect(report).toMatchObject({ ping: 200, masterKey: true, pgPassword: true, smtpUrl: true });

    const info = await created.inspect();
    expect(info.Config.User).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(JSON.stringify(info)).not.toContain(SMTP_PASSWORD);
    expect(info.Config.Env).toContain("LEVELRAIL_SMTP_URL_FILE=/var/lib/levelrail/smtp-url");
  }, 120_000);
});
