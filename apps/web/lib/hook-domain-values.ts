/**
 * The hooks and domains of a service as the form edits them. A hook command
 * is typed one argument per line: nothing to quote or escape, and what is on
 * a line is exactly one argument (no shell splits it). Lines are trimmed and
 * blank ones skipped; an argument that needs a line break or surrounding
 * spaces can be written as a JSON array of strings instead.
 */
export interface HookDomainValues {
  preDeploy: string;
  postDeploy: string;
  timeoutSeconds: string;
  domains: string;
}

/** The form fields these values fill; API and schema errors are shown next to them. */
export const HOOK_DOMAIN_FIELDS = ["preDeploy", "postDeploy", "timeoutSeconds", "domains"] as const;

export const EMPTY_HOOK_DOMAINS: HookDomainValues = { preDeploy: "", postDeploy: "", timeoutSeconds: "300", domains: "" };
