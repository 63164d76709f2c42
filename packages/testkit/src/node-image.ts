import { execFile } from "node:child_process";
import { readFileSync, statSync } from "node:fs";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import type Docker from "dockerode";
import { pack } from "tar-stream";

// An image with this host's Node.js in it and nothing else (`FROM scratch`: node and the libraries
// it links), as the data plane's image is: for programs the product runs with `node -e` on an
// engine of a test's own (the swarm join's probes).

const NODE = process.execPath;

async function linked(file: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)("ldd", [file], { maxBuffer: 4 * 1024 * 1024 });
  return [...stdout.matchAll(/(\/\S+) \(0x[0-9a-f]+\)/g)].map((m) => m[1]!).sort();
}

/**
 * An image `FROM scratch` of host files (`files` and the libraries each links, at their own paths),
 * built on `docker` unless that engine has `tag` already.
 */
export async function ensureHostImage(docker: Docker, o: { tag: string; files: readonly string[] }): Promise<string> {
  try {
    await docker.getImage(o.tag).inspect();
    return o.tag;
  } catch {
    // build it
  }
  const all = new Set<string>();
  for (const f of o.files) for (const x of [f, ...(await linked(f))]) all.add(x);
  const tar = pack();
  tar.entry({ name: "Dockerfile" }, "FROM scratch\nCOPY . /\n");
  tar.entry({ name: ".dockerignore" }, "Dockerfile\n.dockerignore\n");
  tar.entry({ name: "tmp", type: "directory", mode: 0o1777 });
  tar.entry({ name: "etc/passwd" }, "root:x:0:0:root:/root:/sbin/nologin\n");
  for (const f of [...all].sort()) tar.entry({ name: f.replace(/^\//, ""), mode: statSync(f).mode & 0o777 }, readFileSync(f));
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const c of tar) chunks.push(c as Buffer);
  const stream = await docker.buildImage(Readable.from([Buffer.concat(chunks)]), { t: o.tag, rm: true, forcerm: true });
  await new Promise<void>((resolve, reject) =>
    docker.modem.followProgress(stream, (err: Error | null, out: { error?: string }[]) => {
      const bad = out?.find((x) => x.error);
      if (err || bad) reject(err ?? new Error(bad?.error));
      else resolve();
    }),
  );
  return o.tag;
}

/** Builds it on `docker` unless that engine has it; resolves to the tag and the path of `node` inside. */
export async function ensureNodeImage(docker: Docker): Promise<{ image: string; node: string }> {
  const st = statSync(NODE);
  const tag = `levelrail-test/node:${process.version.slice(1)}-${st.size.toString(36)}`;
  return { image: await ensureHostImage(docker, { tag, files: [NODE] }), node: NODE };
}
