import { dockerNodesReader } from "@levelrail/docker/nodes-read";

/**
 * The test host's own engine (`DOCKER_HOST`), asked as the web app asks it: one engine, unless
 * someone made it a swarm manager. Counts the calls, so a test can say a request never asked.
 */
export function hostEngine(): { nodes(): Promise<{ engine: "single" | "swarm" }>; calls: number } {
  const reader = dockerNodesReader({ dockerHost: process.env.DOCKER_HOST });
  const counted = {
    calls: 0,
    async nodes() {
      counted.calls += 1;
      return reader.nodes();
    },
  };
  return counted;
}

/** A swarm manager's answer, for the service verbs' check (the runtime on a real swarm is the swarm tests'). */
export function swarmEngine(): { nodes(): Promise<{ engine: "single" | "swarm" }>; calls: number } {
  const counted = {
    calls: 0,
    async nodes() {
      counted.calls += 1;
      return { engine: "swarm" as const };
    },
  };
  return counted;
}
