// The OpenAPI 3.1 document of /api/v1, built from the route tables in ./routes (one file per
// resource) with zod 4's own JSON Schema conversion (`z.toJSONSchema`, draft 2020-12, which is
// OpenAPI 3.1's dialect). Served by app/api/v1/openapi.json/route.ts, rendered by /settings/api.
import { z } from "zod";
import { envDocument } from "@levelrail/spec/rules";
import { type Operation, pascal, pathParams } from "./operation";
import { CONFIG_ROUTES } from "./routes/config";
import { NODE_ROUTES } from "./routes/nodes";
import { DATABASE_ROUTES } from "./routes/databases";
import { GIT_SOURCE_ROUTES } from "./routes/git-sources";
import { ORG_ROUTES } from "./routes/orgs";
import { PREVIEW_ROUTES } from "./routes/previews";
import { PROJECT_ROUTES } from "./routes/projects";
import { SERVICE_ROUTES } from "./routes/services";
import { BUILD_ROUTES } from "./routes/builds";
import * as s from "./schemas";
import * as more from "./schemas-more";
import * as org from "./schemas-org";

export { OPENAPI_PATH } from "./operation";

/** Every documented operation. A new route is one `op({...})` entry in its resource's file under ./routes. */
export const OPERATIONS: readonly Operation[] = [...ORG_ROUTES, ...PROJECT_ROUTES, ...SERVICE_ROUTES, ...BUILD_ROUTES, ...DATABASE_ROUTES, ...CONFIG_ROUTES, ...GIT_SOURCE_ROUTES, ...PREVIEW_ROUTES, ...NODE_ROUTES];

type JsonSchema = Record<string, unknown>;
type Registry = ReturnType<typeof z.registry<{ id: string }>>;

/** Schemas used by several operations, under their own component names. */
const RESPONSE_NAMES: [z.ZodType, string][] = [
  [s.errorSchema, "Error"],
  [s.anyObject, "AnyObject"],
  [s.anyList, "AnyList"],
  [s.projectSchema, "Project"],
  [s.environmentSchema, "Environment"],
  [s.orgSchema, "Organization"],
  [s.appSchema, "App"],
  [s.appListItemSchema, "AppListItem"],
  [s.serviceSchema, "Service"],
  [s.serviceDetailSchema, "ServiceDetail"],
  [s.releaseSchema, "Release"],
  [s.statusSchema, "ServiceStatus"],
  [s.tierEnvSchema, "EnvVars"],
  [s.secretSchema, "Secret"],
  [s.currentEnvironmentSchema, "CurrentEnvironment"],
  [s.databaseSchema, "Database"],
  [s.databaseDetailSchema, "DatabaseDetail"],
  [s.backupSchema, "Backup"],
  [more.tokenSchema, "Token"],
  [more.sessionSchema, "Session"],
  [more.effectiveEnvEntrySchema, "EffectiveEnvEntry"],
  [more.driftSchema, "Drift"],
  [more.quotasSchema, "Quotas"],
  [more.hookRunPageSchema, "HookRunPage"],
  [more.hookRunDetailSchema, "HookRun"],
  [more.serviceItemSchema, "ServiceListItem"],
  [more.servicePageSchema, "ServicePage"],
  [more.serviceListSchema, "ServiceList"],
  [org.memberSchema, "Member"],
  [org.invitationSchema, "Invitation"],
  [org.orgSecuritySchema, "OrgSecurity"],
  [org.backupTargetSchema, "BackupTarget"],
  [org.registryCredentialSchema, "RegistryCredential"],
];
const REQUEST_NAMES: [z.ZodType, string][] = [[envDocument, "EnvVarsInput"]];

/** The error answers every route shares, by status. */
const ERRORS: Record<number, [string, string]> = {
  400: ["BadRequest", "Invalid input: `invalid_input`, `field` naming the body field, query parameter or path segment at fault"],
  401: ["Unauthenticated", "No session and no valid `Authorization: Bearer <token>`"],
  403: ["Forbidden", "A member whose role does not allow it (the message names the role that would), or an organization requiring a second factor the caller has not enrolled"],
  404: ["NotFound", "Unknown, or another organization's (the same body either way)"],
  409: ["Conflict", "A conflict, incl. `quota_exceeded`"],
  410: ["Gone", "A retired route; the message names its successor"],
  413: ["TooLarge", "The request body is over 4 MiB"],
  429: ["TooMany", "Too many at once; `Retry-After` says when to ask again"],
  500: ["Internal", "The product's own fault (the server log has the details)"],
  503: ["Unavailable", "The panel's database is not reachable right now (apps keep serving)"],
};

const PATH_PARAMS: Record<string, string> = {
  envId: "an environment's id",
  app: "an app's name (unique in its environment)",
  service: "a service's name (unique in its environment)",
  db: "a database's name (unique in its environment)",
  key: "an env key",
  volume: "a volume's name",
  userId: "a user's id, or `me`",
  invitationId: "an invitation's id",
  sourceId: "a git source's id (its webhook URL)",
  id: "the id of the resource the path names",
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/** The component named for `schema` in `reg`, registering it as `fallback` the first time. */
function nameIn(reg: Registry, schema: z.ZodType, fallback: string): string {
  const known = reg.get(schema);
  if (known) return known.id;
  reg.add(schema, { id: fallback });
  return fallback;
}

/** Every schema of a registry as JSON Schema components (references between them as `$ref`s). */
function components(reg: Registry, io: "input" | "output"): Record<string, JsonSchema> {
  const { schemas } = z.toJSONSchema(reg, { io, unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` }) as { schemas: Record<string, JsonSchema> };
  const out: Record<string, JsonSchema> = {};
  for (const [name, { $schema: _s, $id: _i, ...rest }] of Object.entries(schemas)) out[name] = rest;
  return out;
}

function queryParameters(query: z.ZodObject) {
  const json = z.toJSONSchema(query, { io: "input", unrepresentable: "any" }) as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, { description, ...schema }]) => ({
    name,
    in: "query",
    required: (json.required ?? []).includes(name),
    schema,
    ...(typeof description === "string" ? { description } : {}),
  }));
}

function errorStatuses(o: Operation): number[] {
  if (o.public && o.method === "get") return [500];
  const out = [400, 413, 500, 503];
  if (!o.public) out.push(401, 403);
  if (pathParams(o.path).length > 0) out.push(404);
  if (o.method !== "get") out.push(409);
  out.push(...(o.errors ?? []));
  return [...new Set(out)].filter((code) => code !== o.ok.status).sort();
}

function operationObject(o: Operation, requests: Registry, responses: Registry) {
  const name = pascal(o.id);
  const content: Record<string, unknown> = {};
  if (o.ok.schema) content["application/json"] = { schema: ref(nameIn(responses, o.ok.schema, `${name}Response`)) };
  if (o.ok.other) content[o.ok.other.contentType] = { schema: { type: "string", description: o.ok.other.description } };
  const success = { description: o.ok.description, ...(Object.keys(content).length ? { content } : {}) };
  const errors = Object.fromEntries(errorStatuses(o).map((code) => [String(code), { $ref: `#/components/responses/${ERRORS[code]![0]}` }]));
  return {
    operationId: o.id,
    tags: [o.tag],
    summary: o.summary,
    ...(o.description ? { description: o.description } : {}),
    ...(o.deprecated ? { deprecated: true } : {}),
    ...(o.public ? { security: o.method === "get" ? [] : [{}, { bearerToken: [] }, { sessionCookie: [] }] } : {}),
    parameters: [
      ...pathParams(o.path).map((p) => ({ name: p, in: "path", required: true, schema: { type: "string" }, description: PATH_PARAMS[p] ?? p })),
      ...(o.query ? queryParameters(o.query) : []),
    ],
    ...(o.body ? { requestBody: { required: true, content: { "application/json": { schema: ref(nameIn(requests, o.body, `${name}Body`)) } } } } : {}),
    responses: { [String(o.ok.status)]: success, ...errors },
  };
}

/** The whole document; pure (the same operations give the same document). */
export function openApiDocument(operations: readonly Operation[] = OPERATIONS) {
  const requests = z.registry<{ id: string }>();
  const responses = z.registry<{ id: string }>();
  for (const [schema, id] of REQUEST_NAMES) requests.add(schema, { id });
  for (const [schema, id] of RESPONSE_NAMES) responses.add(schema, { id });
  const paths: Record<string, Record<string, unknown>> = {};
  for (const o of operations) {
    const item = (paths[o.path] ??= {});
    if (item[o.method]) throw new Error(`${o.method.toUpperCase()} ${o.path} is described twice`);
    item[o.method] = operationObject(o, requests, responses);
  }
  const outputs = components(responses, "output");
  const inputs = components(requests, "input");
  for (const name of Object.keys(inputs)) if (name in outputs) throw new Error(`component ${name} is both a request and a response schema`);
  return {
    openapi: "3.1.0",
    info: {
      title: "Levelrail API",
      version: "1",
      description:
        "The HTTP API of a Levelrail panel: JSON over HTTP under /api/v1. Every route needs a signed-in browser session or `Authorization: Bearer <token>` (401 without). " +
        "A resource of another organization answers 404 with the same body as one that does not exist. Errors are `{\"error\": {\"code\", \"message\", \"field\"}}`.",
    },
    servers: [{ url: "/", description: "this panel" }],
    security: [{ bearerToken: [] }, { sessionCookie: [] }],
    tags: [...new Set(operations.map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      schemas: { ...outputs, ...inputs },
      responses: Object.fromEntries(
        Object.values(ERRORS).map(([name, description]) => [name, { description, content: { "application/json": { schema: ref("Error") } } }]),
      ),
      securitySchemes: {
        bearerToken: { type: "http", scheme: "bearer", description: "An API token (`npx levelrail token create --email E --name N`): it acts with at most its creator's role, read at every request." },
        sessionCookie: {
          type: "apiKey",
          in: "cookie",
          name: "better-auth.session_token",
          description: "A signed-in browser session (`__Host-levelrail.session_token` over HTTPS). A write with it must carry the panel's own `Origin`.",
        },
      },
    },
  };
}
