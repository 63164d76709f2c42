// Projects and environments, and their env tiers.
import { z } from "zod";
import { projectInput } from "@levelrail/services/project/create";
import { environmentInput } from "@levelrail/services/project/environment";
import { environmentSpec } from "@levelrail/spec/env-spec";
import { envDocument } from "@levelrail/spec/rules";
import { applyInput } from "@levelrail/services/spec/apply";
import { op } from "../operation";
import { anyObject, environmentSchema, projectSchema, tierEnvSchema } from "../schemas";

const dropData = z.strictObject({ dropData: z.enum(["true", "false"]).optional().describe("`true` also deletes the databases' data volumes") });

export const PROJECT_ROUTES = [
  op({ method: "get", path: "/api/v1/projects", id: "listProjects", tag: "Projects", summary: "Every project the caller can see", ok: { status: 200, description: "the projects", schema: z.array(projectSchema) } }),
  op({ method: "post", path: "/api/v1/projects", id: "createProject", tag: "Projects", summary: "Create a project (with its `production` environment)", body: projectInput, ok: { status: 201, description: "the project", schema: projectSchema } }),
  op({ method: "get", path: "/api/v1/projects/{id}", id: "getProject", tag: "Projects", summary: "One project", ok: { status: 200, description: "the project", schema: projectSchema } }),
  op({ method: "delete", path: "/api/v1/projects/{id}", id: "deleteProject", tag: "Projects", summary: "Delete a project with every environment in it", query: dropData, ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: "/api/v1/projects/{id}/env", id: "getProjectEnv", tag: "Env vars", summary: "The project tier's env vars", ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({ method: "put", path: "/api/v1/projects/{id}/env", id: "putProjectEnv", tag: "Env vars", summary: "Replace the project tier's env vars (the whole set)", body: envDocument, ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({ method: "get", path: "/api/v1/projects/{id}/environments", id: "listEnvironments", tag: "Environments", summary: "The project's environments", ok: { status: 200, description: "the environments", schema: z.array(environmentSchema) } }),
  op({
    method: "post",
    path: "/api/v1/projects/{id}/environments",
    id: "createEnvironment",
    tag: "Environments",
    summary: "Create an environment, empty or a clone of another (`from`)",
    description: "A clone copies apps, services, tier vars and secrets (re-sealed); no domains; databases are created empty. `?deploy=true` deploys every cloned service.",
    body: environmentInput,
    query: z.strictObject({ deploy: z.enum(["true", "false"]).optional() }),
    ok: { status: 201, description: "the environment", schema: environmentSchema },
  }),
  op({ method: "get", path: "/api/v1/environments/{envId}", id: "getEnvironment", tag: "Environments", summary: "One environment", ok: { status: 200, description: "the environment", schema: environmentSchema } }),
  op({ method: "delete", path: "/api/v1/environments/{envId}", id: "deleteEnvironment", tag: "Environments", summary: "Delete an environment and everything in it", query: dropData, ok: { status: 204, description: "deleted" } }),
  op({ method: "get", path: "/api/v1/environments/{envId}/env", id: "getEnvironmentEnv", tag: "Env vars", summary: "The environment tier's env vars", ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({ method: "put", path: "/api/v1/environments/{envId}/env", id: "putEnvironmentEnv", tag: "Env vars", summary: "Replace the environment tier's env vars (the whole set)", body: envDocument, ok: { status: 200, description: "the vars", schema: tierEnvSchema } }),
  op({
    method: "get",
    path: "/api/v1/environments/{envId}/spec",
    id: "exportSpec",
    tag: "Config as code",
    summary: "The environment as a spec (what `levelrail export` prints)",
    description: "JSON by default; YAML when the `Accept` header names YAML. `metadata.resourceVersion` changes with any change to the environment.",
    ok: { status: 200, description: "the spec", schema: environmentSpec, other: { contentType: "application/yaml", description: "the same document as YAML" } },
  }),
  op({
    method: "post",
    path: "/api/v1/environments/{envId}/apply",
    id: "applySpec",
    tag: "Config as code",
    summary: "Make the environment match a spec, in one transaction (what `levelrail apply` and `diff` call)",
    description: "`spec` is the YAML text or the document; `secrets` gives secret values by key (the file names secrets only). The exported document itself is taken too, without the envelope: as JSON (what `GET …/spec` answers), or as YAML with `Content-Type: application/yaml`. A mistake is a 400 naming the field with its line and column. A spec exported before the environment changed is a 409 (`metadata.resourceVersion`) unless `force=true`.",
    body: applyInput,
    query: z.strictObject({
      dryRun: z.enum(["true", "false"]).optional().describe("`true` answers the plan and writes nothing"),
      prune: z.enum(["true", "false"]).optional().describe("`true` deletes what the spec leaves out"),
      force: z.enum(["true", "false"]).optional().describe("`true` applies over a newer resourceVersion"),
      deploy: z.enum(["true", "false"]).optional().describe("`true` deploys the services that changed"),
    }),
    ok: { status: 200, description: "the plan, whether it was applied, the new resourceVersion and the services deployed", schema: anyObject },
  }),
  op({ method: "get", path: "/api/v1/spec.schema.json", id: "getSpecSchema", tag: "Config as code", summary: "The JSON Schema of the spec file (public, cacheable: for editors)", public: true, ok: { status: 200, description: "a JSON Schema (2020-12)", schema: anyObject } }),
];
