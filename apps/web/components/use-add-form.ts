"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import type { ZodType } from "zod";
import { ApiError, api } from "@/lib/fetcher";
import { type FieldErrors, bareMessage, topField } from "@/lib/form";

/**
 * What Settings' add forms share (a backup target or registry credential, a git credential, a
 * notification channel): `send` checks the input with the API's own schema, loaded then with the
 * placing of its issues (zod stays out of the page's first load), and POSTs it to `path`; a 400
 * shows next to the field it names, anything else as `failed`. Once added, `onAdded` and the list
 * (`queryKey`) is asked again; `onFailed` clears what must not stay (write-only values).
 */
export function useAddForm<T>({
  path,
  queryKey,
  failed,
  onAdded,
  onFailed,
}: {
  path: string;
  queryKey: readonly unknown[];
  failed: string;
  onAdded: (item: T) => void;
  onFailed?: () => void;
}) {
  const qc = useQueryClient();
  const [errors, setErrors] = useState<FieldErrors>({});
  const create = useMutation({
    mutationFn: (input: unknown) => api<T>(path, { method: "POST", body: input }),
    onSuccess: async (item) => {
      onAdded(item);
      await qc.invalidateQueries({ queryKey });
    },
    onError: (err) => {
      onFailed?.();
      setErrors(err instanceof ApiError ? { [topField(err.field)]: bareMessage(err.message, err.field) } : { form: failed });
    },
  });
  async function send(input: unknown, schema: () => Promise<ZodType>) {
    const [zod, { fieldErrors }] = await Promise.all([schema(), import("@/lib/zod-errors")]);
    const parsed = zod.safeParse(input);
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    create.mutate(parsed.data);
  }
  return { errors, send, pending: create.isPending };
}
