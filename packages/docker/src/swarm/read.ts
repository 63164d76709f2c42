import Docker from "dockerode";
import { parseDockerHost } from "../host";
import { type EngineInfo, type EngineNode, type NodesView, engineKind, nodesView } from "./nodes";

export type { NodesView, NodeView } from "./nodes";

/** The web app's read-only window on the installation's nodes: `docker info`, and on a swarm manager `docker node ls`. */
export interface NodesRead {
  nodes(): Promise<NodesView>;
}

/** `DOCKER_HOST` is read by the caller and passed in. One call on one engine, two on a swarm manager. */
export function dockerNodesReader(opts: { dockerHost?: string | undefined } = {}): NodesRead {
  const api = new Docker({ ...(opts.dockerHost ? parseDockerHost(opts.dockerHost) : {}), timeout: 10_000 });
  return {
    async nodes() {
      const info = (await api.info()) as EngineInfo;
      const list = engineKind(info) === "swarm-manager" ? ((await api.listNodes()) as EngineNode[]) : null;
      return nodesView(info, list);
    },
  };
}
