import type { Runtime } from "@levelrail/docker";
import { Labels, networkName } from "@levelrail/spec/naming";
import type { ProbeResult } from "../application/ports";

// Readiness probes of a swarm's tasks. Their addresses are on the app's overlay network, which the
// worker's host does not route to: the probe is sent from inside that network, by a small
// container on the manager (the data plane's image, a Node.js program run with `node -e`, its
// inputs argv) attached to the app's overlay. One such container per app, made on first use.

/** Probes one URL on an app's overlay network. */
export interface TaskProber {
  probe(appId: string, url: string, timeoutMs: number): Promise<ProbeResult>;
}

/** What the probe container runs: an image with Node.js (the data plane's) and the path of `node` in it. */
export interface ProbeImage {
  image: string;
  node: string;
}

/** argv: url ms. Prints `HTTP <status>` or the error; exits 0 on any 2xx or 3xx. */
const PROBE = `
const [url, ms] = process.argv.slice(1);
fetch(url, { redirect: "manual", signal: AbortSignal.timeout(Number(ms)) }).then(
  (r) => { console.log("HTTP " + r.status); process.exit(r.status >= 200 && r.status < 400 ? 0 : 1); },
  (e) => { console.log((e.cause && (e.cause.code || e.cause.message)) || e.message); process.exit(1); },
);`;

/** Keeps the container alive doing nothing, so probes run in it by exec. */
const IDLE = "setInterval(() => {}, 1 << 30);";

export const probeContainerName = (shortName: string, appId: string) => `${shortName}-probe-${appId}`;

/** Probes through a container on each app's overlay (`Runtime` of the manager's engine). */
export function overlayProber(runtime: Pick<Runtime, "createContainer" | "startContainer" | "inspectContainer" | "exec">, shortName: string, image: ProbeImage): TaskProber {
  const ready = new Map<string, Promise<string>>();

  async function ensure(appId: string): Promise<string> {
    const name = probeContainerName(shortName, appId);
    let c = await runtime.inspectContainer(name);
    if (!c) {
      await runtime.createContainer({
        name,
        Image: image.image,
        Entrypoint: [image.node, "-e", IDLE],
        Cmd: [],
        Labels: { [Labels.managed]: "true", [Labels.instance]: shortName, [Labels.app]: appId, [Labels.role]: "probe" },
        HostConfig: { NetworkMode: networkName(shortName, appId), RestartPolicy: { Name: "unless-stopped" } },
      });
      c = await runtime.inspectContainer(name);
      if (!c) throw new Error(`the probe container ${name} could not be made`);
    }
    if (c.state !== "running") await runtime.startContainer(c.id);
    return c.id;
  }

  return {
    async probe(appId, url, timeoutMs) {
      let id = ready.get(appId);
      if (!id) {
        id = ensure(appId);
        ready.set(appId, id);
        id.catch(() => ready.delete(appId));
      }
      try {
        return await probeIn(runtime, await id, image.node, url, timeoutMs);
      } catch (err) {
        // The container may have gone (removed by hand, the engine restarted): make it again next time.
        ready.delete(appId);
        return { ready: false, detail: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}

/** One probe by exec in `container`: ready on a 2xx or 3xx, else the status or the error as the detail. */
async function probeIn(runtime: Pick<Runtime, "exec">, container: string, node: string, url: string, timeoutMs: number): Promise<ProbeResult> {
  let out = "";
  const { exitCode } = await runtime.exec(container, [node, "-e", PROBE, url, String(timeoutMs)], (t) => (out += t), { signal: AbortSignal.timeout(timeoutMs + 5_000) });
  return { ready: exitCode === 0, detail: out.trim() || `exit ${exitCode}` };
}

/**
 * Probes from the node's ingress namespace (`@levelrail/docker/swarm/edge`: its holder, running the
 * data plane's image, joins every app's overlay before a release is made): the path Caddy's requests
 * take, so a task that answers here answers Caddy.
 */
export function edgeProber(runtime: Pick<Runtime, "exec">, holder: string, node: string): TaskProber {
  return {
    async probe(_appId, url, timeoutMs) {
      try {
        return await probeIn(runtime, holder, node, url, timeoutMs);
      } catch (err) {
        return { ready: false, detail: err instanceof Error ? err.message : String(err) };
      }
    },
  };
}
