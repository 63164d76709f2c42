import Docker from "dockerode";
import { statusOf } from "../engine-errors";
import { parseDockerHost } from "../host";
import { imageCalls } from "../images";
import { demuxLogs } from "../streams";
import { type EngineInfo, type EngineNode, engineKind, nodeView, sortNodes } from "./nodes";
import type { SwarmPort } from "./port";
import { type EngineService, type EngineTask, overlayNetworkBody, serviceInfo, serviceSpecBody, taskInfo } from "./spec";

export type * from "./port";
export { MTU_OPTION, overlayNetworkBody, serviceSpecBody } from "./spec";

/** How long a request/response call to the engine may take (as the Runtime's). */
const REQUEST_TIMEOUT_MS = 60_000;

const labelFilter = (labels: string[]) => (labels.length ? { filters: JSON.stringify({ label: labels }) } : {});

/** dockerode sends `_query` as the query string and `_body` as the JSON body of a POST. */
const versioned = (version: number, body: Record<string, unknown>) => ({ _query: { version }, _body: body });

const DIGEST = /@sha256:[0-9a-f]{64}$/;

/** `ref` pinned to `digest`, its tag kept for people reading it (`name:tag@sha256:…`). */
export function pinned(ref: string, digest: string): string {
  return DIGEST.test(ref) ? ref : `${ref}@${digest}`;
}

/** The swarm port on dockerode; `DOCKER_HOST` is read by the caller and passed in, as for `dockerRuntime`. */
/**
 * `encryptOverlays`: asked at each overlay the port creates; true makes it IPsec-encrypted between
 * the nodes whatever the caller asked (the installation's policy: every app and database overlay
 * is, where the kernel can; see `./ipsec`).
 */
export function dockerSwarm(opts: { dockerHost?: string | undefined; encryptOverlays?: () => boolean } = {}): SwarmPort {
  const base: Docker.DockerOptions = opts.dockerHost ? parseDockerHost(opts.dockerHost) : {};
  return swarmCalls(new Docker({ ...base, timeout: REQUEST_TIMEOUT_MS }), new Docker(base), opts.encryptOverlays ? { encryptOverlays: opts.encryptOverlays } : {});
}

/** `api` answers request/response calls under a deadline; `streams` carries pulls (as long as they take). */
export function swarmCalls(api: Docker, streams: Docker = api, policy: { encryptOverlays?: () => boolean } = {}): SwarmPort {
  const images = imageCalls(api, streams);
  const processOf = async (ref: string) => {
    try {
      const config = (await api.getImage(ref).inspect()).Config;
      return { entrypoint: [...(config?.Entrypoint ?? [])], cmd: [...(config?.Cmd ?? [])] };
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  };
  const inspectService = async (nameOrId: string) => {
    try {
      return serviceInfo((await api.getService(nameOrId).inspect()) as EngineService);
    } catch (err) {
      if (statusOf(err) === 404) return null;
      throw err;
    }
  };
  const auth = (a: { username: string; password: string; serveraddress: string } | null | undefined) =>
    a ? { username: a.username, password: a.password, serveraddress: a.serveraddress } : undefined;

  return {
    async swarmInfo() {
      const info = (await api.info()) as EngineInfo;
      const kind = engineKind(info);
      return { kind, nodeId: kind === "single" ? null : (info.Swarm?.NodeID ?? null), name: info.Name ?? "" };
    },
    async listNodes() {
      return sortNodes(((await api.listNodes()) as EngineNode[]).map(nodeView));
    },
    async updateNode(id, change) {
      const node = api.getNode(id);
      const current = (await node.inspect()) as EngineNode & { Version?: { Index?: number } };
      const spec = {
        ...current.Spec,
        ...(change.availability ? { Availability: change.availability } : {}),
        ...(change.labels ? { Labels: { ...change.labels } } : {}),
      };
      await node.update(versioned(current.Version?.Index ?? 0, spec));
    },
    async resolveImage(ref, registryAuth) {
      if (DIGEST.test(ref)) return ref;
      try {
        const a = auth(registryAuth);
        const d = (await api.getImage(ref).distribution(a ? { authconfig: a } : {})) as { Descriptor?: { digest?: string } };
        const digest = d.Descriptor?.digest;
        return digest ? pinned(ref, digest) : null;
      } catch (err) {
        // The engine answered (no such image there, a login refused, a registry it cannot reach): nothing to pin.
        if (statusOf(err) !== undefined) return null;
        throw err;
      }
    },
    async imageProcess(ref, registryAuth) {
      const here = await processOf(ref);
      if (here) return here;
      try {
        await images.pullImage(ref, auth(registryAuth) ?? null, () => {});
      } catch (err) {
        // No registry has it (or refused the login): nothing to run, as the caller says.
        if (statusOf(err) !== undefined || /not found|manifest unknown|denied|unauthorized|no basic auth/i.test(String((err as Error)?.message))) return null;
        throw err;
      }
      return processOf(ref);
    },
    async createService(spec) {
      try {
        const body = serviceSpecBody(spec);
        const a = auth(spec.registryAuth);
        const created = a ? await api.createService(a, body as Docker.ServiceSpec) : await api.createService(body as Docker.CreateServiceOptions);
        return created.id;
      } catch (err) {
        if (statusOf(err) === 409) return null;
        throw err;
      }
    },
    inspectService,
    async listServices(labelFilters) {
      const list = (await api.listServices(labelFilter(labelFilters) as Docker.ServiceListOptions)) as EngineService[];
      return list.map(serviceInfo);
    },
    async updateService(id, version, spec) {
      const a = auth(spec.registryAuth);
      // With a login (sent as X-Registry-Auth), the engine passes it on to the nodes that pull (`--with-registry-auth`).
      await api.getService(id).update({ ...versioned(version, serviceSpecBody(spec)), ...(a ? { authconfig: a } : {}) });
    },
    async removeService(id) {
      try {
        await api.getService(id).remove();
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
    async serviceLogs(id, tailLines) {
      try {
        const buf = (await api.getService(id).logs({ stdout: true, stderr: true, tail: tailLines, follow: false } as never)) as unknown as Buffer;
        return demuxLogs(Buffer.isBuffer(buf) ? buf : Buffer.from(String(buf)));
      } catch (err) {
        if (statusOf(err) === 404) return "";
        throw err;
      }
    },
    async listTasks(serviceId) {
      const list = (await api.listTasks({ filters: JSON.stringify({ service: [serviceId] }) })) as EngineTask[];
      // The filter matches service names by prefix as well; keep the service's own.
      return list.map(taskInfo).filter((t) => t.serviceId === serviceId);
    },
    async listRunningTasks() {
      const list = (await api.listTasks({ filters: JSON.stringify({ "desired-state": ["running"] }) })) as EngineTask[];
      return list.map(taskInfo);
    },
    async createOverlayNetwork(spec) {
      try {
        const encrypted = spec.encrypted || policy.encryptOverlays?.() === true;
        await api.createNetwork(overlayNetworkBody({ ...spec, encrypted }) as unknown as Docker.NetworkCreateOptions);
        return true;
      } catch (err) {
        if (statusOf(err) === 409) return false;
        throw err;
      }
    },
    async createSecret(name, labels, value) {
      const data = (typeof value === "string" ? Buffer.from(value, "utf8") : value).toString("base64");
      const created = (await api.createSecret({ Name: name, Labels: { ...labels }, Data: data })) as { id?: string; ID?: string };
      const id = created.id ?? created.ID;
      if (!id) throw new Error(`the engine created secret ${name} without answering its id`);
      return id;
    },
    async listSecrets(labelFilters) {
      const list = (await api.listSecrets(labelFilter(labelFilters))) as { ID: string; Spec?: { Name?: string; Labels?: Record<string, string> | null } }[];
      return list.map((s) => ({ id: s.ID, name: s.Spec?.Name ?? "", labels: { ...(s.Spec?.Labels ?? {}) } }));
    },
    async removeSecret(id) {
      try {
        await api.getSecret(id).remove();
      } catch (err) {
        if (statusOf(err) !== 404) throw err;
      }
    },
  };
}
