"use client";
// An organization's registry credentials (a service's attachments); its git credentials are in settings-queries.ts.
import { useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { keys } from "./keys";
import type { RegistryCredentialItem } from "./types";

export const useRegistryCredentials = () =>
  useQuery({ queryKey: keys.registryCredentials(), queryFn: () => api<RegistryCredentialItem[]>("/registry-credentials") });
