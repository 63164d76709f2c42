import Link from "@/components/link";
import type { ReactNode } from "react";
import { environmentHref } from "@/lib/paths";
import type { EnvironmentItem, ProjectItem } from "@/lib/types";

/** "project / environment / …": where a page lives, the environment linking to its page. */
export function EnvironmentCrumbs({ project, environment, children }: { project: ProjectItem; environment: EnvironmentItem; children?: ReactNode }) {
  return (
    <p className="crumbs">
      {project.name} / <Link href={environmentHref(environment.id)}>{environment.name}</Link>
      {children ? <> / {children}</> : null}
    </p>
  );
}
