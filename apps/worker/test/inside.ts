import type { Runtime } from "@levelrail/docker";

/** Runs argv in a container (through the engine's exec API); its exit code and combined output. */
export async function runInside(runtime: Pick<Runtime, "exec">, containerId: string, argv: string[]): Promise<{ exitCode: number; out: string }> {
  let out = "";
  const { exitCode } = await runtime.exec(containerId, argv, (t) => (out += t));
  return { exitCode, out };
}

/** The addresses in busybox nslookup's answer (after the `Name:` line; the server's own `Address:` line comes first). */
export const resolved = (out: string) =>
  out
    .split("Name:")
    .slice(1)
    .flatMap((part) => [...part.matchAll(/Address:\s*([0-9.]+)\s*$/gm)].map((m) => m[1]!));

/** GET / of `name`:8080 from inside a container (busybox's own `timeout`: its wget -T crashes). */
export const wgetArgv = (name: string) => ["/bin/busybox", "timeout", "10", "/bin/busybox", "wget", "-q", "-O-", `http://${name}:8080/`];
