import { describe, expect, it } from "vitest";
import { EDGE_SUPERVISOR, type EdgeOptions, edgeAdminConfig, edgeCaddyOptions, edgeHolderOptions, edgeNetworkBody } from "./edge";

const o: EdgeOptions = { shortName: "lr", holderImage: { image: "levelrail/mesh-dns:abc", node: "/usr/bin/node" }, caddyImage: "levelrail/caddy:def", httpPort: 80, httpsPort: 443, caddyHome: "/var/lib/levelrail/caddy" };

describe("a swarm node's ingress namespace", () => {
  it("is held by a container on the edge bridge with the ingress ports published, under the engine's restart policy", () => {
    const holder = edgeHolderOptions(o);
    expect(holder).toMatchObject({ name: "lr-edge", Image: "levelrail/mesh-dns:abc", Entrypoint: ["/usr/bin/node", "-e", expect.any(String)] });
    expect(holder.HostConfig).toMatchObject({
      NetworkMode: "lr-edge",
      PortBindings: { "80/tcp": [{ HostIp: "0.0.0.0", HostPort: "80" }], "443/tcp": [{ HostIp: "0.0.0.0", HostPort: "443" }] },
      RestartPolicy: { Name: "unless-stopped" },
    });
    expect(edgeHolderOptions({ ...o, httpsPort: null }).HostConfig.PortBindings).toEqual({ "80/tcp": [{ HostIp: "0.0.0.0", HostPort: "80" }] });
    expect(edgeNetworkBody("lr")).toMatchObject({ Name: "lr-edge", Driver: "bridge", CheckDuplicate: true });
  });

  it("is made again when its ports or its program change (its inputs label), not for a new image: an upgrade keeps the namespace and its overlays", () => {
    const label = (x: EdgeOptions) => edgeHolderOptions(x).Labels["levelrail.edge.inputs"];
    expect(label(o)).toBe(label({ ...o, caddyImage: "levelrail/caddy:new" }));
    expect(label(o)).not.toBe(label({ ...o, httpPort: 8080 }));
    expect(label(o)).toBe(label({ ...o, holderImage: { ...o.holderImage, image: "levelrail/mesh-dns:new" } }));
  });

  it("the holder watches its namespace through the engine's socket folder (read-only), its program Node's built-ins only", () => {
    const holder = edgeHolderOptions({ ...o, engineSocket: "/run/docker.sock" });
    expect(holder.Entrypoint).toEqual(["/usr/bin/node", "-e", EDGE_SUPERVISOR]);
    expect(holder.Env).toEqual(["LEVELRAIL_EDGE=lr-edge", "LEVELRAIL_SHORT_NAME=lr", "LEVELRAIL_ENGINE_SOCKET=/run/levelrail-engine/docker.sock"]);
    expect(holder.HostConfig).toMatchObject({ Binds: ["/run:/run/levelrail-engine:ro"] });
    expect(edgeHolderOptions(o).HostConfig).not.toHaveProperty("Binds");
    expect([...EDGE_SUPERVISOR.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1])).toEqual(["node:http"]);
    // A holder made before it supervised is made again.
    expect(holder.Labels["levelrail.edge.inputs"]).not.toBe(edgeHolderOptions(o).Labels["levelrail.edge.inputs"]);
  });

  it("runs Caddy in the holder's namespace with its admin API on a unix socket in its root-only folder, never on an address", () => {
    const caddy = edgeCaddyOptions(o);
    expect(caddy).toMatchObject({ name: "lr-edge-caddy", Image: "levelrail/caddy:def", Cmd: ["run", "--config", "/var/lib/levelrail/caddy/admin.json", "--resume"] });
    expect(caddy.HostConfig).toMatchObject({ NetworkMode: "container:lr-edge", Binds: ["/var/lib/levelrail/caddy:/var/lib/levelrail/caddy"], RestartPolicy: { Name: "unless-stopped" } });
    expect(edgeAdminConfig(o.caddyHome)).toEqual({ listen: "unix//var/lib/levelrail/caddy/admin.sock", origins: ["localhost"] });
  });
});
