import { tierEnvRoutes } from "@/lib/tier-env";

/** The project's env vars: `{"vars": {"KEY": "value"}}`; PUT replaces the whole set. */
export const { GET, PUT } = tierEnvRoutes("project", "id");
