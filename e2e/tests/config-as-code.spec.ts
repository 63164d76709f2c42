// Config as code (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply) through the real stack: the real CLI (scripts/cli.ts through tsx)
// over HTTP with an API token against `next start`, and the spec routes' own answers.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApiToken } from "@levelrail/auth";
import { createApp } from "@levelrail/services/app/app";
import { getProject } from "@levelrail/services/project/list";
import { createEnvironment } from "@levelrail/services/project/environment";
import { createService } from "@levelrail/services/service/write";
import { repoRoot } from "../support/env";
import { expect, test } from "../fixtures/test";

const home = mkdtempSync(join(tmpdir(), "lr-cac-"));

function cli(args: string[], env: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(join(repoRoot, "node_modules", ".bin", "tsx"), [join(repoRoot, "scripts", "cli.ts"), ...args], { cwd: repoRoot, env: { PATH: process.env.PATH ?? "", HOME: home, ...env } }, (error, out, err) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out, err }),
    );
  });
}

test("export, diff and apply over HTTP with a token; a bad file is a 400 with its line and column", async ({ operator, stack, bearer }) => {
  test.setTimeout(180_000);
  const ctx = operator.ctx;
  await createApp({ ctx, envId: ctx.envId, input: { name: "shop" } });
  await createService({ ctx, envId: ctx.envId, input: { name: "web", app: "shop", image: "registry.example.com/shop:1.0", port: 8080, env: { A: "1" } } });
  const staging = await createEnvironment({ ctx, projectId: operator.projectId, input: { name: "staging" } });
  const project = (await getProject(ctx, operator.projectId)).name;
  const env = { LEVELRAIL_URL: stack.env.baseURL, LEVELRAIL_TOKEN: await createApiToken(stack.db, operator.email, "cac") };

  const exported = await cli(["export", "--env", `${project}/production`], env);
  expect(exported.err).toBe("");
  expect(exported.out).toMatch(/resourceVersion: [0-9a-f]{24}/);
  const file = join(home, "production.yaml");
  writeFileSync(file, exported.out);
  expect((await cli(["diff", "-f", file], env)).code).toBe(0);
  const toStaging = ["--env", `${project}/staging`];
  expect((await cli(["diff", "-f", file, ...toStaging], env)).code).toBe(2);
  expect(await cli(["apply", "-f", file, ...toStaging], env)).toMatchObject({ code: 0 });
  expect((await cli(["diff", "-f", file, ...toStaging], env)).code).toBe(0);

  const json = await bearer.get(`/api/v1/environments/${staging.id}/spec`, { headers: { accept: "application/json" } });
  expect(json.status()).toBe(200);
  expect((await json.json()).spec.services.map((s: { name: string }) => s.name)).toEqual(["web"]);
  const schema = await bearer.get("/api/v1/spec.schema.json");
  expect((await schema.json()).properties.spec).toBeTruthy();

  const bad = await bearer.post(`/api/v1/environments/${staging.id}/apply`, { data: { spec: exported.out.replace("port: 8080", "port: 8080\n      colour: blue") } });
  expect(bad.status()).toBe(400);
  expect((await bad.json()).error).toMatchObject({ code: "invalid_input", field: expect.stringMatching(/^spec\.services\.0\.colour$/), message: expect.stringMatching(/^line \d+, column 7: spec\.services\.0\.colour: unknown field colour$/) });

  // What GET …/spec answers is taken back as it is, as `kubectl apply -f` users send it: the YAML
  // with a YAML content type, and the JSON document, neither wrapped in {spec: …}.
  const yaml = await (await bearer.get(`/api/v1/environments/${staging.id}/spec`, { headers: { accept: "application/yaml" } })).text();
  const asYaml = await bearer.post(`/api/v1/environments/${staging.id}/apply?dryRun=true`, { headers: { "content-type": "application/yaml" }, data: yaml });
  expect(asYaml.status()).toBe(200);
  expect((await asYaml.json()).plan.changes).toEqual([]);
  const doc = await (await bearer.get(`/api/v1/environments/${staging.id}/spec`)).json();
  const asJson = await bearer.post(`/api/v1/environments/${staging.id}/apply?dryRun=true`, { data: doc });
  expect(asJson.status()).toBe(200);
  expect((await asJson.json()).plan.changes).toEqual([]);
});
