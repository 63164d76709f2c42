import { describe, expect, it, vi } from "vitest";
import { FakeEngine } from "@levelrail/docker/fake";
import { Roles, containerName, networkLabels, networkName, serviceLabels } from "@levelrail/spec/naming";
import { AddressBook } from "./addresses";

const SHORT = "lrt";

async function stoppedContainer() {
  const engine = new FakeEngine();
  const network = networkName(SHORT, "app-1");
  engine.addNetwork({ name: network, labels: networkLabels(SHORT, "app-1"), subnet: "10.201.0.0/26", gateway: "10.201.0.1" });
  const name = containerName(SHORT, "web", { serviceId: "svc-1", imageId: "sha256:a", restartNonce: "" });
  const id = (await engine.createContainer({ name, Labels: serviceLabels(SHORT, { serviceId: "svc-1", appId: "app-1", environmentId: "env-1", releaseId: "r" }, Roles.service), HostConfig: { NetworkMode: network } }))!;
  return { engine, name, id, network };
}

describe("AddressBook", () => {
  it("asks again for a container that was not running once its miss has aged, with no event to say it started", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      const { engine, name, id, network } = await stoppedContainer();
      const book = new AddressBook(engine, SHORT, 1000);
      expect(await book.address(name, "app-1")).toBeNull();
      await engine.startContainer(id); // no one tells the book (a start before its event watch connected)
      expect(await book.address(name, "app-1")).toBeNull(); // still within the miss
      vi.setSystemTime(Date.now() + 1001);
      expect(await book.address(name, "app-1")).toBe(engine.get(name)!.addresses[network]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("keeps a running container's address until told it changed", async () => {
    const { engine, name, id, network } = await stoppedContainer();
    await engine.startContainer(id);
    const book = new AddressBook(engine, SHORT, 1000);
    expect(await book.address(name, "app-1")).toBe(engine.get(name)!.addresses[network]);
    const inspect = vi.spyOn(engine, "inspectContainer");
    expect(await book.address(name, "app-1")).toBe(engine.get(name)!.addresses[network]);
    expect(inspect).not.toHaveBeenCalled();
    book.invalidate(name);
    await book.address(name, "app-1");
    expect(inspect).toHaveBeenCalledTimes(1);
  });
});

it("an event while the engine answers makes that answer old: the next look-up asks again", async () => {
  const { engine, name, id } = await stoppedContainer();
  await engine.startContainer(id);
  const book = new AddressBook(engine, SHORT, 1000);
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => (release = r));
  const real = engine.inspectContainer.bind(engine);
  const inspect = vi.spyOn(engine, "inspectContainer").mockImplementation(async (n) => {
    const answer = await real(n); // running, as the engine saw it
    await gate;
    return answer;
  });
  const first = book.address(name, "app-1");
  await vi.waitFor(() => expect(inspect).toHaveBeenCalledTimes(1));
  await engine.stopContainer(id);
  book.invalidate(name); // its die event, before the engine's answer came
  release();
  await first;
  expect(await book.address(name, "app-1")).toBeNull(); // asked again: not running
  expect(inspect).toHaveBeenCalledTimes(2);
});
