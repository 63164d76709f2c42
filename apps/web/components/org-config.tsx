// The Settings page's organization-wide lists with write-only parts. A server component: the
// columns, fields and texts are plain data handed to ConfigList (the client part) as props, so
// they are in the page's data, not in its JavaScript.
import { keys } from "@/lib/keys";
import { ConfigList } from "./config-list";

/** S3-compatible storage targets; the secret key is set here and never shown again. */
export function BackupTargets() {
  return (
    <ConfigList
      id="backup-targets"
      title="Backup targets"
      noun="backup target"
      path="/backup-targets"
      queryKey={keys.backupTargets()}
      schema="backupTargetInput"
      empty="No backup targets yet. A service with one attached gets its S3_* variables."
      columns={[
        { label: "Name", field: "name" },
        { label: "Endpoint", field: "endpoint", mono: true },
        { label: "Bucket", field: "bucket", mono: true },
        { label: "Region", field: "region" },
        { label: "Access key", field: "accessKey", mono: true },
        { label: "Secret key", setAt: "updatedAt" },
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
  return (
    <ConfigList
      id="registry-credentials"
      title="Registry credentials"
      noun="registry credential"
      path="/registry-credentials"
      queryKey={keys.registryCredentials()}
      schema="registryCredentialInput"
      empty="No registry credentials yet. A service using one pulls its image with that login."
      columns={[
        { label: "Name", field: "name" },
        { label: "Server", field: "server", mono: true },
        { label: "Username", field: "username", mono: true },
        { label: "Password", setAt: "updatedAt" },
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
