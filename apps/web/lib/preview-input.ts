import { previewSettingsInput } from "@levelrail/spec/preview";

/**
 * Preview settings as the API checks them (PreviewsCard loads this on submit, with the schema):
 * the input to send, or the first problem with its field (`domain: …`).
 */
export function checkPreviewSettings(input: unknown): { data: ReturnType<typeof previewSettingsInput.parse> } | { field: string; message: string } {
  const parsed = previewSettingsInput.safeParse(input);
  if (parsed.success) return { data: parsed.data };
  const issue = parsed.error.issues[0];
  const field = issue?.path.map(String).join(".") ?? "";
  return { field, message: `${field}: ${issue?.message ?? "invalid"}` };
}
