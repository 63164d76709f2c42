// For tests only (it imports ajv, a dev dependency): checks JSON bodies against the document's own
// response schemas, the way a client generated from the document would expect them.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import type { ErrorObject } from "ajv";

interface Doc {
  paths: Record<string, Record<string, { responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }> }> }>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
}

const ROOT = "urn:levelrail:openapi";

/** Every component schema compiled by Ajv (draft 2020-12, strict about keywords, with formats). */
export function schemaChecker(document: unknown) {
  const doc = document as Doc;
  const ajv = new Ajv2020({ strict: true, strictTypes: false, strictRequired: false, allErrors: true });
  addFormats.default(ajv);
  // Component references as `$defs` of one root schema, so Ajv resolves them.
  const defs = JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', `"${ROOT}#/$defs/`)) as Record<string, unknown>;
  ajv.addSchema({ $id: ROOT, $defs: defs });
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const byName = (name: string) => {
    let v = compiled.get(name);
    if (!v) compiled.set(name, (v = ajv.compile({ $ref: `${ROOT}#/$defs/${name}` })));
    return v;
  };
  /** The schema of the JSON answer of `method path` with `status`, as a component name. */
  const responseSchemaName = (method: string, path: string, status: number): string => {
    const responses = doc.paths[path]?.[method.toLowerCase()]?.responses;
    if (!responses) throw new Error(`${method} ${path} is not in the document`);
    let response = responses[String(status)];
    if (!response) throw new Error(`${method} ${path} does not document a ${status}`);
    if (response.$ref) response = doc.components.responses[response.$ref.split("/").at(-1)!]!;
    const ref = (response.content?.["application/json"]?.schema as { $ref?: string } | undefined)?.$ref;
    if (!ref) throw new Error(`${method} ${path} ${status} has no JSON schema`);
    return ref.split("/").at(-1)!;
  };
  return {
    names: Object.keys(doc.components.schemas),
    compile: byName,
    /** The errors of `body` against the documented answer (empty: it conforms). */
    check(method: string, path: string, status: number, body: unknown): string[] {
      const validate = byName(responseSchemaName(method, path, status));
      return validate(body) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`);
    },
  };
}
