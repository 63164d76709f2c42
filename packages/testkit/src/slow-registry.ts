import { createHash, randomBytes } from "node:crypto";
import { type ServerResponse, createServer } from "node:http";
import type { AddressInfo } from "node:net";

const sha256 = (b: Buffer | string) => `sha256:${createHash("sha256").update(b).digest("hex")}`;

/**
 * Just enough of the registry v2 API on 127.0.0.1 (plain HTTP: the engine treats 127.0.0.0/8
 * registries as insecure) for one image, `<server>/slow:1`, whose one layer trickles a byte every
 * `byteEveryMs`: a registry that answers but never finishes a pull in time.
 */
export async function startSlowRegistry({ byteEveryMs = 300, layerBytes = 64 * 1024 } = {}) {
  const layer = randomBytes(layerBytes);
  const config = Buffer.from(
    JSON.stringify({ architecture: "amd64", os: "linux", config: {}, rootfs: { type: "layers", diff_ids: [sha256(layer)] } }),
  );
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: "application/vnd.docker.distribution.manifest.v2+json",
      config: { mediaType: "application/vnd.docker.container.image.v1+json", size: config.length, digest: sha256(config) },
      layers: [{ mediaType: "application/vnd.docker.image.rootfs.diff.tar.gzip", size: layer.length, digest: sha256(layer) }],
    }),
  );
  const stats = { layerRequests: 0, layerBytesSent: 0, layerClosedEarly: 0 };
  const trickles = new Set<NodeJS.Timeout>();

  const send = (res: ServerResponse, body: Buffer, type: string, head: boolean, digest?: string) => {
    res.writeHead(200, { "Content-Type": type, "Content-Length": body.length, ...(digest ? { "Docker-Content-Digest": digest } : {}) });
    res.end(head ? undefined : body);
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    const head = req.method === "HEAD";
    res.setHeader("Docker-Distribution-API-Version", "registry/2.0");
    if (path === "/v2/" || path === "/v2") return send(res, Buffer.from("{}"), "application/json", head);
    if (path === "/v2/slow/manifests/1" || path === `/v2/slow/manifests/${sha256(manifest)}`) {
      return send(res, manifest, "application/vnd.docker.distribution.manifest.v2+json", head, sha256(manifest));
    }
    if (path === `/v2/slow/blobs/${sha256(config)}`) return send(res, config, "application/octet-stream", head, sha256(config));
    if (path === `/v2/slow/blobs/${sha256(layer)}`) {
      if (head) return send(res, layer, "application/octet-stream", true, sha256(layer));
      stats.layerRequests++;
      res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Length": layer.length, "Docker-Content-Digest": sha256(layer) });
      let sent = 0;
      const timer = setInterval(() => {
        if (sent >= layer.length) return;
        res.write(layer.subarray(sent, sent + 1));
        sent++;
        stats.layerBytesSent++;
      }, byteEveryMs);
      trickles.add(timer);
      res.on("close", () => {
        clearInterval(timer);
        trickles.delete(timer);
        if (sent < layer.length) stats.layerClosedEarly++;
      });
      return;
    }
    res.writeHead(404, { "Content-Type": "application/json" });
    res.end(JSON.stringify({ errors: [{ code: "NAME_UNKNOWN", message: `no ${path}` }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const server_ = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    /** `127.0.0.1:<port>`. */
    server: server_,
    /** The one image it serves. */
    image: `${server_}/slow:1`,
    /** Layer downloads started, bytes trickled, and downloads the client closed before the end (a cancelled pull). */
    stats,
    async stop() {
      for (const t of trickles) clearInterval(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
