import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SHORT_NAME,
  Labels,
  type ContainerKey,
  Roles,
  builtImageName,
  builtImageServiceId,
  containerHash,
  containerName,
  isPreDeployContainer,
  instanceFilter,
  networkLabels,
  networkName,
  preDeployName,
  serviceFilter,
  serviceLabels,
  unresolvableBuiltName,
} from "./naming";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const IMAGE = "sha256:4b825dc642cb6eb9a060e54bf8d69288fbee4904";
const OWNER = { serviceId: "svc-1", appId: "app-1", environmentId: "env-1", releaseId: "rel-1" };

const key = (over: Partial<ContainerKey> = {}): ContainerKey => ({ serviceId: "svc-1", imageId: IMAGE, restartNonce: "", ...over });

describe("containerName", () => {
  it("is deterministic: the same service, image and nonce give the same name", () => {
    expect(containerName("lr", "web", key())).toBe(containerName("lr", "web", key()));
    expect(containerName("lr", "web", key({ restartNonce: "a1b2c3" }))).toBe(containerName("lr", "web", key({ restartNonce: "a1b2c3" })));
  });

  it("gives two images two names", () => {
    const images = [IMAGE, "registry.example.com/shop:1.4.3", "shop", "shop:latest", "sha256:0123456789abcdef"];
    const names = images.map((imageId) => containerName("lr", "web", key({ imageId })));
    expect(new Set(names).size).toBe(images.length);
  });

  it("gives two nonces two names, and a nonce a different name than none", () => {
    const names = ["", "n1", "n2", "0"].map((restartNonce) => containerName("lr", "web", key({ restartNonce })));
    expect(new Set(names).size).toBe(4);
  });

  it("gives two services named alike (two environments) two names for the same image and nonce", () => {
    const prod = containerName("lr", "web", key({ serviceId: "svc-prod" }));
    const staging = containerName("lr", "web", key({ serviceId: "svc-staging" }));
    expect(prod).not.toBe(staging);
    expect(prod.startsWith("lr-web-") && staging.startsWith("lr-web-")).toBe(true);
  });

  it("hashes the service id, the image id and the nonce, separated (none contains the newline between them)", () => {
    expect(containerHash(key())).toBe(sha256(`svc-1\n${IMAGE}\n`).slice(0, 12));
    expect(containerHash(key({ imageId: "ab", restartNonce: "c" }))).not.toBe(containerHash(key({ imageId: "a", restartNonce: "bc" })));
    expect(containerHash(key({ serviceId: "s1", imageId: "x" }))).not.toBe(containerHash(key({ serviceId: "s", imageId: "1x" })));
  });

  it("is <short>-<service>-<hash>", () => {
    const name = containerName("levelrail", "shop-web", key({ restartNonce: "abc123" }));
    expect(name).toMatch(/^levelrail-shop-web-[0-9a-f]{12}$/);
    expect(name).toBe(`levelrail-shop-web-${sha256(`svc-1\n${IMAGE}\nabc123`).slice(0, 12)}`);
  });

  it("never gives the name an earlier version gave (image and nonce only): those containers are replaced once", () => {
    expect(containerHash(key())).not.toBe(sha256(IMAGE).slice(0, 12));
    expect(containerHash(key({ restartNonce: "n1" }))).not.toBe(sha256(`${IMAGE}\nn1`).slice(0, 12));
  });
});

describe("pre-deploy containers", () => {
  const name = containerName("lr", "web", key());
  it("are named <service container>-pre-deploy", () => {
    expect(preDeployName(name)).toBe(`${name}-pre-deploy`);
  });

  it("are told from service containers by their role label and their name together", () => {
    const labels = serviceLabels("lr", OWNER, Roles.preDeploy);
    expect(isPreDeployContainer({ name: preDeployName(name), labels })).toBe(true);
    expect(isPreDeployContainer({ name, labels: serviceLabels("lr", OWNER, Roles.service) })).toBe(false);
    // An earlier version's service container: no role of its own, or one its image brought along.
    expect(isPreDeployContainer({ name, labels: {} })).toBe(false);
    expect(isPreDeployContainer({ name, labels: { [Labels.role]: "pre-deploy" } })).toBe(false);
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
  it("every service container carries managed, instance, service, app, environment, release and its role", () => {
    expect(serviceLabels("lr", OWNER, Roles.service)).toEqual({
      "levelrail.managed": "true",
      "levelrail.service": "svc-1",
      "levelrail.app": "app-1",
      "levelrail.environment": "env-1",
      "levelrail.instance": "lr",
      "levelrail.release": "rel-1",
      "levelrail.role": "service",
    });
    expect(serviceLabels("lr", OWNER, Roles.preDeploy)).toMatchObject({ "levelrail.environment": "env-1", "levelrail.role": "pre-deploy" });
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

describe("built image names", () => {
  const ID = "11111111-1111-4111-8111-111111111111";
  const C = "a".repeat(40);
  it("names a build under a registry host that never resolves, and reads both spellings back to the service", () => {
    expect(builtImageName("lr", ID, C)).toBe(`levelrail.invalid/lr/${ID}:${C}`);
    for (const ref of [builtImageName("lr", ID, C), `lr/${ID}:${C}`, `docker.io/lr/${ID}:${C}`, `index.docker.io/lr/${ID}`, `LEVELRAIL.INVALID/lr/${ID}@sha256:${"b".repeat(64)}`]) {
      expect(builtImageServiceId("lr", ref), ref).toBe(ID);
    }
    for (const ref of [`other/${ID}:${C}`, `ghcr.io/lr/${ID}:${C}`, `lr/web:${C}`, `lr/${ID}/x:1`, "nginx:1"]) expect(builtImageServiceId("lr", ref), ref).toBeNull();
    expect(unresolvableBuiltName(`lr/${ID}:${C}`)).toBe(builtImageName("lr", ID, C));
    expect(unresolvableBuiltName(`docker.io/lr/${ID}:${C}`)).toBe(builtImageName("lr", ID, C));
    expect(unresolvableBuiltName(builtImageName("lr", ID, C))).toBe(builtImageName("lr", ID, C));
  });
});
