"use client";
import { keys } from "@/lib/keys";
import { useBackupTargets, useRegistryCredentials } from "@/lib/config-queries";
import type { BackupTargetItem, RegistryCredentialItem } from "@/lib/types";
import { ConfigList } from "./config-list";
import { Timestamp } from "./timestamp";

/** S3-compatible storage targets; the secret key is set here and never shown again. */
export function BackupTargets() {
  const query = useBackupTargets();
  return (
    <ConfigList<BackupTargetItem>
      id="backup-targets"
      title="Backup targets"
      noun="backup target"
      path="/backup-targets"
      queryKey={keys.backupTargets()}
      query={query}
      schema={async () => (await import("@levelrail/spec/config")).backupTargetInput}
      empty="No backup targets yet. A service with one attached gets its S3_* variables."
      columns={[
        { label: "Name", cell: (t) => t.name },
        { label: "Endpoint", cell: (t) => t.endpoint, mono: true },
        { label: "Bucket", cell: (t) => t.bucket, mono: true },
        { label: "Region", cell: (t) => t.region },
        { label: "Access key", cell: (t) => t.accessKey, mono: true },
        { label: "Secret key", cell: (t) => <>set, updated <Timestamp iso={t.updatedAt} /></> },
      ]}
      fields={[
        { name: "name", label: "Name", placeholder: "backups" },
        { name: "endpoint", label: "Endpoint", placeholder: "https://s3.example.com" },
        { name: "bucket", label: "Bucket" },
        { name: "region", label: "Region", placeholder: "us-east-1" },
        { name: "accessKey", label: "Access key" },
        { name: "secretKey", label: "Secret key", type: "password" },
      ]}
    />
  );
}

/** Private registry logins; the password is set here and never shown again. */
export function RegistryCredentials() {
  const query = useRegistryCredentials();
  return (
    <ConfigList<RegistryCredentialItem>
      id="registry-credentials"
      title="Registry credentials"
      noun="registry credential"
      path="/registry-credentials"
      queryKey={keys.registryCredentials()}
      query={query}
      schema={async () => (await import("@levelrail/spec/config")).registryCredentialInput}
      empty="No registry credentials yet. A service using one pulls its image with that login."
      columns={[
        { label: "Name", cell: (c) => c.name },
        { label: "Server", cell: (c) => c.server, mono: true },
        { label: "Username", cell: (c) => c.username, mono: true },
        { label: "Password", cell: (c) => <>set, updated <Timestamp iso={c.updatedAt} /></> },
      ]}
      fields={[
        { name: "name", label: "Name", placeholder: "private registry" },
        { name: "server", label: "Server", placeholder: "registry.example.com" },
        { name: "username", label: "Username" },
        { name: "password", label: "Password", type: "password" },
      ]}
    />
  );
}
