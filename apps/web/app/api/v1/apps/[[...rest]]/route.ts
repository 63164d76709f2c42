import { movedRoutes } from "@/lib/moved";

/** 410: apps live in environments now (`/api/v1/environments/{envId}/apps`). */
export const { GET, POST, PUT, PATCH, DELETE } = movedRoutes("apps");
