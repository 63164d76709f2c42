import { movedRoutes } from "@/lib/moved";

/** 410: services live in environments now (`/api/v1/environments/{envId}/services/{name}`). */
export const { GET, POST, PUT, PATCH, DELETE } = movedRoutes("services");
