import type Docker from "dockerode";

/** dockerode's connection options for a `DOCKER_HOST` value (`unix:///path` or `tcp://host:port`). */
export function parseDockerHost(host: string): Docker.DockerOptions {
  if (host.startsWith("unix://")) return { socketPath: host.slice("unix://".length) };
  const url = new URL(host.replace(/^tcp:/, "http:"));
  return { host: url.hostname, port: Number(url.port || 2375), protocol: "http" };
}
