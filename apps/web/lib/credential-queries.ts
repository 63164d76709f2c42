"use client";
// An organization's registry and git credentials (Settings, a service's source and attachments).
import { useQuery } from "@tanstack/react-query";
import type { GitCredentialView } from "@levelrail/spec/git";
import { api } from "./fetcher";
import { keys } from "./keys";
import type { RegistryCredentialItem } from "./types";

const enc = encodeURIComponent;

export const useRegistryCredentials = () =>
  useQuery({ queryKey: keys.registryCredentials(), queryFn: () => api<RegistryCredentialItem[]>("/registry-credentials") });

/** An organization's git credentials; `orgId` undefined (not known yet): not asked. */
export const useGitCredentials = (orgId: string | undefined) =>
  useQuery({ queryKey: keys.gitCredentials(orgId ?? ""), queryFn: () => api<GitCredentialView[]>(`/orgs/${enc(orgId ?? "")}/git-credentials`), enabled: orgId !== undefined });
