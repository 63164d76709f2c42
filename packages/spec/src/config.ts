import { z } from "zod";

/** A new S3-compatible storage (backup) target; shared by the API and the form. */
export const backupTargetInput = z
  .object({
    name: z.string().trim().min(1, "is required").max(100),
    endpoint: z.url({ protocol: /^https?$/, error: "must be an http(s) URL like https://s3.example.com" }),
    bucket: z.string().trim().min(1, "is required").max(255),
    region: z.string().trim().min(1, "is required").max(64),
    accessKey: z.string().min(1, "is required").max(1024),
    secretKey: z.string().min(1, "is required").max(4096),
    orgId: z.string().uuid().optional(),
  })
  .strict();
export type BackupTargetInput = z.infer<typeof backupTargetInput>;

/** A new private registry login; shared by the API and the form. */
export const registryCredentialInput = z
  .object({
    name: z.string().trim().min(1, "is required").max(100),
    server: z
      .string()
      .trim()
      .min(1, "is required")
      .max(255)
      .regex(/^[a-z0-9.-]+(:\d+)?$/i, "must be a registry host like registry.example.com or 127.0.0.1:5000"),
    username: z.string().min(1, "is required").max(255),
    password: z.string().min(1, "is required").max(4096),
    orgId: z.string().uuid().optional(),
  })
  .strict();
export type RegistryCredentialInput = z.infer<typeof registryCredentialInput>;
