"use client";
import { type FormEvent, type ReactNode, Suspense, lazy, useState } from "react";
import type { GitCredentialView } from "@levelrail/spec/git";
import { keys } from "@/lib/keys";
import { useGitCredentials } from "@/lib/settings-queries";
import { useCurrentEnvironment, useOrgs } from "@/lib/queries";
import { DeleteButton } from "./config-list";
import { Field } from "./field";
import { FormMessages } from "./form-messages";
import { ACTIONS, ListCard } from "./list-card";
import { Timestamp } from "./timestamp";
import { useAddForm } from "./use-add-form";

/**
 * A deploy key's copy control, in its own chunk: only an organization with deploy keys (or one just
 * generated) shows it; the server renders it in the page, and its script follows.
 */
const Copyable = lazy(() => import("./copyable").then((m) => ({ default: m.Copyable })));

/** An HTTPS token's fields, in their own chunk: they show once the kind "HTTPS token" is chosen (a deploy key needs none). */
const TokenFields = lazy(() => import("./git-token-fields").then((m) => ({ default: m.TokenFields })));

/**
 * An organization's git credentials (docs/operating/git-builds-and-previews.md#git-sources-and-credentials): deploy keys the panel generates, whose public
 * half is shown to add to the repository, and HTTPS tokens, write-only. Next to registry credentials.
 * `intro`: the card's text, rendered on the server (GitCredentialsIntro, settings-text.tsx).
 */
export function GitCredentialsCard({ intro }: { intro: ReactNode }) {
  const orgs = useOrgs();
  const current = useCurrentEnvironment().data;
  const org = orgs.data?.find((o) => o.id === current?.project.orgId) ?? orgs.data?.[0];
  const list = useGitCredentials(org?.id);
  const queryKey = keys.gitCredentials(org?.id ?? "");
  return (
    <ListCard<GitCredentialView>
      id="git-credentials"
      title="Git credentials"
      before={intro}
      source={{ data: list.data, error: orgs.error ?? list.error, isPending: list.isPending }}
      empty="No git credentials yet. A public repository needs none."
      headers={["Name", "Kind", "Public key or user", "Hosts", "Added", ACTIONS]}
      rowKey={(c) => c.id}
      row={(c) => (
        <tr>
          <td>{c.name}</td>
          <td>{c.kind === "ssh" ? "deploy key" : "token"}</td>
          <td className="mono">{c.publicKey ? (
              <Suspense fallback={<code className="mono">{c.publicKey}</code>}>
                <Copyable label="" text={c.publicKey} copyLabel={`Copy the public key of ${c.name}`} />
              </Suspense>
            ) : (
              (c.username ?? "token only")
            )}</td>
          <td className="mono">{c.hosts.length ? c.hosts.join(", ") : c.kind === "ssh" ? "any host" : "none: sent nowhere"}</td>
          <td>
            <Timestamp iso={c.createdAt} />
          </td>
          <td>
            {org && (
              <DeleteButton
                path={`/orgs/${encodeURIComponent(org.id)}/git-credentials/${encodeURIComponent(c.id)}`}
                label={`Delete git credential ${c.name}`}
                queryKey={queryKey}
              />
            )}
          </td>
        </tr>
      )}
    >
      {org && <NewCredential orgId={org.id} queryKey={queryKey} />}
    </ListCard>
  );
}

function NewCredential({ orgId, queryKey }: { orgId: string; queryKey: readonly unknown[] }) {
  const [kind, setKind] = useState<"ssh" | "token">("ssh");
  const [name, setName] = useState("");
  const [token, setToken] = useState("");
  const [username, setUsername] = useState("");
  const [hosts, setHosts] = useState("");
  const [made, setMade] = useState<GitCredentialView | null>(null);
  const { errors, send, pending } = useAddForm<GitCredentialView>({
    path: `/orgs/${encodeURIComponent(orgId)}/git-credentials`,
    queryKey,
    failed: "could not add the git credential",
    onAdded: (c) => {
      setName("");
      setToken("");
      setUsername("");
      setHosts("");
      setMade(c);
    },
    onFailed: () => setToken(""),
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    setMade(null);
    // The hosts the credential may be sent to, separated by spaces or commas.
    const list = hosts.split(/[\s,]+/).filter(Boolean);
    const input = kind === "ssh" ? { kind, name, hosts: list } : { kind, name, token, hosts: list, ...(username ? { username } : {}) };
    void send(input, async () => (await import("@levelrail/spec/git")).gitCredentialInput);
  }
  return (
    <form className="stack" onSubmit={submit} aria-labelledby="git-credentials-form-title" noValidate>
      <h3 id="git-credentials-form-title">New git credential</h3>
      <div className="row">
        <Field id="git-credential-name" label="Name" error={errors.name}>
          {(a11y) => <input {...a11y} value={name} onChange={(e) => setName(e.target.value)} placeholder="shop-deploy" autoComplete="off" spellCheck={false} />}
        </Field>
        <Field id="git-credential-kind" label="Kind" error={errors.kind}>
          {(a11y) => (
            <select {...a11y} value={kind} onChange={(e) => setKind(e.target.value === "token" ? "token" : "ssh")}>
              <option value="ssh">Deploy key (generated)</option>
              <option value="token">HTTPS token</option>
            </select>
          )}
        </Field>
        <Field
          id="git-credential-hosts"
          label="Hosts it may be sent to"
          error={errors.hosts}
          hint={kind === "token" ? "required: github.com api.github.com (a port limits it to that port)" : "optional: none lets the key reach any host"}
        >
          {(a11y) => <input {...a11y} value={hosts} onChange={(e) => setHosts(e.target.value)} placeholder="github.com api.github.com" autoComplete="off" spellCheck={false} />}
        </Field>
        {kind === "token" && (
          <Suspense fallback={null}>
            <TokenFields token={token} username={username} errors={errors} onToken={setToken} onUsername={setUsername} />
          </Suspense>
        )}
      </div>
      <FormMessages error={errors.form} done={made ? `Added git credential ${made.name}` : null} />
      {made?.publicKey && (
        <p>
          <Suspense fallback={null}>
            <Copyable label="Add this public key to the repository (read-only):" text={made.publicKey} copyLabel={`Copy the public key of ${made.name}`} />
          </Suspense>
        </p>
      )}
      <div className="buttons">
        <button type="submit" disabled={pending}>
          {kind === "ssh" ? "Generate deploy key" : "Add token"}
        </button>
      </div>
    </form>
  );
}
