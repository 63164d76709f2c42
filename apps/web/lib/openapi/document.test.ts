import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { servedRoutes } from "../../../../e2e/support/api-routes";
import { OPERATIONS, openApiDocument } from "./document";
import { schemaChecker } from "./testing";

const doc = openApiDocument();
const webDir = join(import.meta.dirname, "..", "..");

/**
 * Catch-alls are no API: `/api/v1/{...rest}` answers 404 to a path no route serves, and the flat
 * `services/{...rest}` and `apps/{...rest}` answer 410 naming their successors. A multi-segment
 * path parameter has no OpenAPI form.
 */
const isCatchAll = (path: string) => path.includes("{...");

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document", async () => {
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    const { info: _info, ...broken } = structuredClone(doc);
    expect((await new Validator().validate(broken)).valid, "a document without info").toBe(false);
  }, 60_000); // the validator compiles the whole 3.1 meta-schema: ~1.5 s idle, several under a loaded CI

  it("has component schemas that are valid JSON Schema 2020-12 and whose references all resolve", () => {
    const checker = schemaChecker(doc);
    for (const name of checker.names) expect(() => checker.compile(name), name).not.toThrow();
  }, 60_000);

  it("describes every method and path of the route files, and nothing they do not serve", () => {
    const served = servedRoutes(webDir)
      .filter((r) => !isCatchAll(r.path))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    expect(served.filter((r) => !documented.includes(r)), "routes the document does not describe (add an op() to apps/web/lib/openapi/routes)").toEqual([]);
    expect(documented.filter((r) => !served.includes(r)), "documented routes no route file serves").toEqual([]);
  });

  it("names each operation once, describes the auth and the error shape", () => {
    const ids = OPERATIONS.map((o) => o.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Object.keys(doc.components.securitySchemes)).toEqual(["bearerToken", "sessionCookie"]);
    expect(doc.components.securitySchemes.bearerToken).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({ type: "apiKey", in: "cookie" });
    expect(doc.paths["/api/v1/openapi.json"]!.get).toMatchObject({ security: [] });
    const error = doc.components.schemas.Error as { properties: { error: { properties: Record<string, unknown>; required: string[] } } };
    expect(Object.keys(error.properties.error.properties)).toEqual(["code", "message", "field"]);
    expect(error.properties.error.required).toEqual(["code", "message"]);
  });

  it("reuses the verbs' own input schemas: a service's body carries their rules", () => {
    const body = doc.components.schemas.CreateServiceBody as { properties: Record<string, { pattern?: string }>; required: string[]; additionalProperties: boolean };
    // `image` or `source` (a git source builds the image): the verb requires one of them.
    expect(body.required).toEqual(expect.arrayContaining(["name", "app", "port"]));
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["image", "source"]));
    expect(body.properties.name!.pattern).toBe("^[a-z][a-z0-9-]{0,62}$");
    expect(body.additionalProperties).toBe(false);
  });

  it("checks bodies against the response schemas: an error, a project", () => {
    const checker = schemaChecker(doc);
    expect(checker.check("GET", "/api/v1/projects/{id}", 404, { error: { code: "not_found", message: "project not found" } })).toEqual([]);
    expect(checker.check("GET", "/api/v1/projects/{id}", 404, { error: { code: "nope", message: "x" } })).not.toEqual([]);
    const project = { id: "7d1d2f1e-5a4b-4c3d-8e2f-1a2b3c4d5e6f", orgId: "7d1d2f1e-5a4b-4c3d-8e2f-1a2b3c4d5e6f", name: "shop", createdAt: "2026-01-01T00:00:00.000Z" };
    expect(checker.check("GET", "/api/v1/projects", 200, [project])).toEqual([]);
    expect(checker.check("GET", "/api/v1/projects", 200, [{ ...project, secret: "x" }])).not.toEqual([]);
  });
});
