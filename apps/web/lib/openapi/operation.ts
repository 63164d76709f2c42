import type { z } from "zod";

/** Where the panel serves the document. */
export const OPENAPI_PATH = "/api/v1/openapi.json";

export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";

/** What one route answers when it succeeds. */
export interface Success {
  status: 200 | 201 | 202 | 204 | 410;
  description: string;
  /** The JSON body's schema (a zod schema, converted as the route's output); none for a 204. */
  schema?: z.ZodType;
  /** Another media type than JSON (a log stream, an NDJSON export), described in words. */
  other?: { contentType: string; description: string };
}

/**
 * One method of one route file, as the OpenAPI document describes it. `path` is the route folder's
 * path with `{param}` for each `[param]` folder, exactly as `servedRoutes` reads it, so the test can
 * compare the two sets. Bodies and queries are the zod schemas the verbs parse with (imported from
 * `@levelrail/spec` or `@levelrail/services`), never copies.
 */
export interface Operation {
  method: HttpMethod;
  path: string;
  /** Unique, camelCase: the operationId, and the prefix of the component names of its own schemas. */
  id: string;
  tag: string;
  summary: string;
  description?: string;
  /** The JSON request body, parsed by the verb (input side: defaults make a field optional). */
  body?: z.ZodType;
  /** Query parameters, each property one parameter (input side). */
  query?: z.ZodObject;
  ok: Success;
  /** Answered without a session or a token (the document itself, accepting an invitation by sign-up). */
  public?: boolean;
  deprecated?: boolean;
  /** Error statuses besides those every route may answer (400, 401, 403, 413, 500, 503; 404 with a path parameter; 409 on a write). */
  errors?: number[];
}

/** Typed shorthand, so each resource file reads as a table. */
export const op = (o: Operation): Operation => o;

/** The path parameters of a path, in order: `/api/v1/orgs/{id}/members/{userId}` → `["id", "userId"]`. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);

/** `listProjects` → `ListProjects`: component names. */
export const pascal = (id: string): string => id.charAt(0).toUpperCase() + id.slice(1);
