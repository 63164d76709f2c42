import { mkdirSync } from "node:fs";
import { installConfig } from "./config";
import { install } from "./install";
import { uninstall } from "./uninstall";
import { ownDockerd } from "./own-dockerd";
const engine = ownDockerd("lrini", "/work/wt/install/.dockerd");
await engine.start();
process.env.DOCKER_HOST = engine.dockerHost;
const env = { LEVELRAIL_SHORT_NAME: "lrini", PORT: "3507", LEVELRAIL_INGRESS_HTTP_PORT: "18487", LEVELRAIL_INGRESS_HTTPS_PORT: "18850", LEVELRAIL_CADDY_ADMIN: "http://127.0.0.1:2526", LEVELRAIL_MESH_DNS_PORT: "10560", LEVELRAIL_METRICS_PORT: "9971", LEVELRAIL_PG_PORT: "54507", LEVELRAIL_INGRESS_TLS: "off", LEVELRAIL_NETWORK_POOL: "10.215.0.0/16" };
mkdirSync("/tmp/lrin-dd/logs", { recursive: true });
if (process.argv[2] === "uninstall") {
  await uninstall(installConfig(env, "/tmp/lrin-dd"), console.log);
  process.exit(0);
}
const r = await install(installConfig(env, "/tmp/lrin-dd"), { build: false, log: console.log });
console.log(r);
process.exit(0);
