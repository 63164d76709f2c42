import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { EDGE_FEED_TOKEN_FILE, EDGE_FEED_TOKEN_SECRET_FILE } from "@levelrail/spec/dataplane";
import { FEED_TOKEN_FILE, FEED_TOKEN_SECRET_FILE, ensureFeedToken, nodeAgentSpec } from "./node-agent.mjs";

const dir = mkdtempSync(join(tmpdir(), "lr-feed-token-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the edge feed's token", () => {
  it("is made once beside the data plane's state, mode 0600, where the mesh DNS reads it", () => {
    expect([FEED_TOKEN_FILE, FEED_TOKEN_SECRET_FILE]).toEqual([EDGE_FEED_TOKEN_FILE, EDGE_FEED_TOKEN_SECRET_FILE]);
    const token = ensureFeedToken(dir);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(ensureFeedToken(dir)).toBe(token);
    expect(statSync(join(dir, "dataplane", EDGE_FEED_TOKEN_FILE)).mode & 0o777).toBe(0o600);
  });

  it("reaches the node agents as a swarm secret's file, never in their environment", () => {
    const token = ensureFeedToken(dir);
    const spec = nodeAgentSpec({ short: "lr", image: "reg/x@sha256:1", version: "v1", managerNodeId: "m1", nodeEngineSocket: "/var/run/docker.sock", httpPort: 80, httpsPort: null, meshPort: 10053, feedSecret: { id: "sec1", name: "lr-edge-feed-abc" } });
    const c = spec.TaskTemplate.ContainerSpec;
    expect(c.Secrets).toEqual([{ SecretID: "sec1", SecretName: "lr-edge-feed-abc", File: { Name: "edge-feed-token", UID: "0", GID: "0", Mode: 0o400 } }]);
    expect(c.Env).toContain(`LEVELRAIL_EDGE_FEED_TOKEN_FILE=${EDGE_FEED_TOKEN_SECRET_FILE}`);
    expect(JSON.stringify(spec)).not.toContain(token);
  });
});
