import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SHORT_NAME,
  Labels,
  containerHash,
  containerName,
  instanceFilter,
  networkLabels,
  networkName,
  serviceFilter,
  serviceLabels,
} from "./naming";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const IMAGE = "registry.example.com/shop:1.4.2";

describe("containerName", () => {
  it("is deterministic: the same image and nonce give the same name", () => {
    expect(containerName("lr", "web", IMAGE, "")).toBe(containerName("lr", "web", IMAGE, ""));
    expect(containerName("lr", "web", IMAGE, "a1b2c3")).toBe(containerName("lr", "web", IMAGE, "a1b2c3"));
  });

  it("gives two images two names", () => {
    const images = [IMAGE, "registry.example.com/shop:1.4.3", "shop", "shop:latest", "sha256:0123456789abcdef"];
    const names = images.map((i) => containerName("lr", "web", i, ""));
    expect(new Set(names).size).toBe(images.length);
  });

  it("gives two nonces two names, and a nonce a different name than none", () => {
    const names = ["", "n1", "n2", "0"].map((n) => containerName("lr", "web", IMAGE, n));
    expect(new Set(names).size).toBe(4);
  });

  it("with an empty nonce hashes the image alone", () => {
    expect(containerHash(IMAGE, "")).toBe(sha256(IMAGE).slice(0, 12));
    expect(containerName("lr", "web", IMAGE, "")).toBe(`lr-web-${sha256(IMAGE).slice(0, 12)}`);
  });

  it("separates image and nonce (an image reference never contains the newline between them)", () => {
    expect(containerHash("ab", "c")).not.toBe(containerHash("a", "bc"));
  });

  it("is <short>-<service>-<hash>", () => {
    const name = containerName("levelrail", "shop-web", IMAGE, "abc123");
    expect(name).toMatch(/^levelrail-shop-web-[0-9a-f]{12}$/);
    expect(name).toBe(`levelrail-shop-web-${containerHash(IMAGE, "abc123")}`);
    expect(containerHash(IMAGE, "abc123")).toBe(sha256(`${IMAGE}\nabc123`).slice(0, 12));
  });
});

describe("networkName", () => {
  it("is exactly <short>-app-<appId>", () => {
    const appId = "6f1c2b8e-1d2a-4c3b-9e8f-0a1b2c3d4e5f";
    expect(networkName("lr", appId)).toBe(`lr-app-${appId}`);
    expect(networkName(DEFAULT_SHORT_NAME, "x")).toBe("levelrail-app-x");
  });
});

describe("labels", () => {
  it("every service container carries managed, service and app (plus instance and release)", () => {
    expect(serviceLabels("lr", "svc-1", "app-1", "rel-1")).toEqual({
      "levelrail.managed": "true",
      "levelrail.service": "svc-1",
      "levelrail.app": "app-1",
      "levelrail.instance": "lr",
      "levelrail.release": "rel-1",
    });
  });

  it("every network carries managed, instance and app", () => {
    expect(networkLabels("lr", "app-1")).toEqual({
      "levelrail.managed": "true",
      "levelrail.instance": "lr",
      "levelrail.app": "app-1",
    });
  });

  it("all label keys share the levelrail. prefix", () => {
    for (const key of Object.values(Labels)) expect(key.startsWith("levelrail.")).toBe(true);
  });

  it("filters select one installation and one service", () => {
    expect(instanceFilter("lr")).toEqual(["levelrail.managed=true", "levelrail.instance=lr"]);
    expect(serviceFilter("lr", "svc-1")).toEqual(["levelrail.managed=true", "levelrail.instance=lr", "levelrail.service=svc-1"]);
  });
});
