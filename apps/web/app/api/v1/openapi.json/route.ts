import { publicDocument } from "@/lib/etag";
import { openApiDocument } from "@/lib/openapi/document";

/**
 * The OpenAPI 3.1 document of every /api/v1 route (docs/api.md). Public: it describes the API and
 * holds nothing of any organization. Built once per process from the routes' zod schemas, answered
 * with a strong ETag (304 when the client has it) and cacheable for five minutes.
 */
export const GET = publicDocument(openApiDocument);
