import { describe, expect, it } from "vitest";
import { DOMAINS_KEY, IMAGES_KEY, INGRESS_KEY, NETWORKS_KEY, NODES_KEY, PREVIEWS_KEY, PREVIEW_SWEEP_KEY, type ReconcileKey, backupKey, buildKey, databaseKey, formatKey, notificationsKey, parseKey, serviceKey } from "./keys";

describe("reconcile keys", () => {
  it.each<[ReconcileKey, string]>([
    [serviceKey("0b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"), "service:0b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"],
    [databaseKey("1b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"), "database:1b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"],
    [backupKey("2b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"), "backup:2b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"],
    [buildKey("3b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"), "build:3b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"],
    [notificationsKey("4b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"), "notifications:4b6f1c9e-7d1a-4c55-9a51-3f1d2c7b8e90"],
    [INGRESS_KEY, "ingress"],
    [NETWORKS_KEY, "networks"],
    [IMAGES_KEY, "images"],
    [DOMAINS_KEY, "domains"],
    [PREVIEWS_KEY, "previews"],
    [PREVIEW_SWEEP_KEY, "preview-sweep"],
    [NODES_KEY, "nodes"],
  ])("%j is %s on the wire and back", (key, wire) => {
    expect(formatKey(key)).toBe(wire);
    expect(parseKey(wire)).toEqual(key);
  });

  it.each(["", "service:", "service:a b", "Ingress", "app:x", "database:", "backup:a/b", "build:", "notifications:", `service:${"x".repeat(65)}`])("ignores %j", (wire) => {
    expect(parseKey(wire)).toBeNull();
  });
});
