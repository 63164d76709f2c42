import { specJsonSchema } from "@levelrail/spec/env-spec";
import { json, route } from "@/lib/api";

/** The JSON Schema of the spec file (CONTRACT §10), generated from the API's zod schemas; editors validate a spec against it. */
export const GET = route(async () => json(specJsonSchema()));
