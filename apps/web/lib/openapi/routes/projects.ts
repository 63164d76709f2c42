// Projects and environments, and their env tiers.
import { z } from "zod";
import { projectInput } from "@levelrail/services/project/create";
import { environmentInput } from "@levelrail/services/project/environment";
import { envDocument } from "@levelrail/spec/rules";
import { op } from "../operation";
import { environmentSchema, projectSchema, tierEnvSchema } from "../schemas";

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
];
