"use client";
// The queries every page of the panel may run: the header's (current environment, projects, an
// environment and its siblings) and the organizations. The others live apart, by what uses them
// (fleet-, service-, database-, config-, settings-, metrics- and hook-run-queries.ts): the bundler
// keeps whole modules, so one module of every hook put every page's hooks on every page.
import { useQuery } from "@tanstack/react-query";
import { api } from "./fetcher";
import { keys } from "./keys";
import { envApi } from "./paths";
import type { CurrentEnvironment, EnvironmentItem, OrgItem, ProjectItem } from "./types";

export const useEnvironment = (envId: string, enabled = true) =>
  useQuery({ queryKey: keys.environment(envId), queryFn: () => api<EnvironmentItem>(envApi(envId)), enabled });

/** The operator's current environment, remembered server-side. */
export const useCurrentEnvironment = () =>
  useQuery({ queryKey: keys.currentEnvironment(), queryFn: () => api<CurrentEnvironment>("/me/environment") });

export const useOrgs = () => useQuery({ queryKey: keys.orgs(), queryFn: () => api<OrgItem[]>("/orgs") });

export const useProjects = () => useQuery({ queryKey: keys.projects(), queryFn: () => api<ProjectItem[]>("/projects") });

export const useEnvironments = (projectId: string | undefined) =>
  useQuery({
    queryKey: keys.environments(projectId ?? ""),
    queryFn: () => api<EnvironmentItem[]>(`/projects/${encodeURIComponent(projectId ?? "")}/environments`),
    enabled: projectId !== undefined,
  });

/** A path with its query string; empty values are left out. */
export function withQuery(path: string, params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") q.set(k, String(v));
  const text = q.toString();
  return text ? `${path}?${text}` : path;
}
