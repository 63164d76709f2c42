import { describe, expect, it } from "vitest";
import { ExecStoppedError } from "@levelrail/docker";
import { FakeEngine } from "@levelrail/docker/fake";
import { leadingRuntime } from "./leading-runtime";

async function running(engine: FakeEngine): Promise<string> {
  const id = (await engine.createContainer({ name: "db", Image: "postgres:17" }))!;
  await engine.startContainer(id);
  return id;
}

describe("leadingRuntime", () => {
  it("stops every exec, stream and wait in flight the moment the lead is lost", async () => {
    const engine = new FakeEngine();
    engine.execScript = () => ({ chunks: [], exit: "runs" });
    const id = await running(engine);
    const lead = new AbortController();
    const rt = leadingRuntime(engine, lead.signal);
    const exec = rt.exec(id, ["pg_isready"], () => {});
    const stream = await rt.execStream(id, ["pg_dump"], {});
    const streamError = new Promise<Error>((resolve) => stream.stdout.on("error", resolve));
    const wait = rt.waitExit(id);
    lead.abort(new Error("this worker lost the leader lock"));
    await expect(exec).rejects.toThrow(new ExecStoppedError("pg_isready", "this worker lost the leader lock", true));
    await expect(stream.done).rejects.toThrow("pg_dump was stopped: this worker lost the leader lock");
    expect((await streamError).message).toBe("pg_dump was stopped: this worker lost the leader lock");
    await expect(wait).rejects.toThrow("this worker lost the leader lock");
  });

  it("keeps the caller's own signal too, and leaves every other call alone", async () => {
    const engine = new FakeEngine();
    engine.execScript = () => ({ chunks: [], exit: "runs" });
    const id = await running(engine);
    const rt = leadingRuntime(engine, new AbortController().signal);
    await expect(rt.exec(id, ["psql"], () => {}, { signal: AbortSignal.timeout(20) })).rejects.toThrow("psql was stopped: its deadline passed");
    expect((await rt.inspectContainer(id))?.state).toBe("running");
  });
});
