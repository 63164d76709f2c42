import { specJsonSchema } from "@levelrail/spec/env-spec";
import { publicDocument } from "@/lib/etag";

/**
 * The JSON Schema of the spec file (docs/operating/projects-environments-spec.md#config-as-code-export-diff-apply), generated from the API's zod schemas. Public,
 * like the OpenAPI document beside it: an editor validates a spec against it without a token, and
 * it holds nothing of any organization. Built once per process; a strong ETag and five minutes' cache.
 */
export const GET = publicDocument(specJsonSchema, "application/schema+json");
