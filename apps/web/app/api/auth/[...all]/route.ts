import { toNextJsHandler } from "better-auth/next-js";
import { server } from "@/lib/server";

// Resolved per request so the environment is read at the first request, not at build.
const handler = (req: Request) => server().auth.handler(req);

export const { GET, POST, PATCH, PUT, DELETE } = toNextJsHandler(handler);
