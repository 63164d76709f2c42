import { existsSync, readFileSync } from "node:fs";
import { Readable } from "node:stream";
import type Docker from "dockerode";
import { pack } from "tar-stream";

/** Tests build their own images FROM scratch around the static busybox: no registry needed. */
export const BUSYBOX = "/bin/busybox";

export interface TestImage {
  /** e.g. `levelrail-test/web:v1` */
  tag: string;
  /** What GET / answers. */
  body: string;
  /** Whether GET /healthz answers 200 (otherwise 404: never ready). */
  healthy: boolean;
  /** Extra files, path → content (mode 0644), or content and mode (e.g. 0o755 for a CGI script). */
  files?: Record<string, string | Buffer | { content: string | Buffer; mode: number }>;
  /** Override the command (argv). */
  cmd?: readonly string[];
  /** The image's own labels (`LABEL` in its Dockerfile), which Docker merges into its containers'. */
  labels?: Record<string, string>;
  /** Build on this image (one of ours, with busybox) instead of scratch: only `body`, `healthz` and `files` go in a layer of their own. */
  from?: string;
}

function dockerfile(img: TestImage): string {
  const cmd: readonly string[] = img.cmd ?? ["/bin/busybox", "httpd", "-f", "-p", "8080", "-h", "/www"];
  const labels = Object.entries(img.labels ?? {}).map(([k, v]) => `LABEL ${JSON.stringify(k)}=${JSON.stringify(v)}`);
  return [`FROM ${img.from ?? "scratch"}`, ...labels, "COPY . /", `CMD ${JSON.stringify(cmd)}`, ""].join("\n");
}

/** Builds `img` unless the engine has it already; returns its id. */
export async function ensureTestImage(docker: Docker, img: TestImage): Promise<string> {
  try {
    return (await docker.getImage(img.tag).inspect()).Id;
  } catch {
    // not there yet: build it
  }
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} is missing: install Debian's busybox-static package`);
  const tar = pack();
  tar.entry({ name: "Dockerfile" }, dockerfile(img));
  if (!img.from) {
    tar.entry({ name: "bin/busybox", mode: 0o755 }, readFileSync(BUSYBOX));
    tar.entry({ name: "bin/sh", type: "symlink", linkname: "busybox" });
  }
  tar.entry({ name: "www/index.html" }, img.body);
  if (img.healthy) tar.entry({ name: "www/healthz" }, "ok\n");
  if (!img.from) tar.entry({ name: "tmp/.keep" }, "");
  for (const [path, file] of Object.entries(img.files ?? {})) {
    const { content, mode } = typeof file === "string" || Buffer.isBuffer(file) ? { content: file, mode: 0o644 } : file;
    tar.entry({ name: path.replace(/^\//, ""), mode }, content);
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(chunk as Buffer);
  const stream = await docker.buildImage(Readable.from([Buffer.concat(chunks)]), { t: img.tag, rm: true, forcerm: true, labels: { "levelrail.test": "true" } });
  await new Promise<void>((resolve, reject) => {
    docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const bad = out?.find((o) => o.error);
      if (err || bad) reject(err ?? new Error(bad?.error));
      else resolve();
    });
  });
  return (await docker.getImage(img.tag).inspect()).Id;
}
