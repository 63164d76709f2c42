"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ServiceView } from "@levelrail/spec/service";
import { ApiError, api } from "@/lib/fetcher";
import type { FieldErrors } from "@/lib/form";
import { keys } from "@/lib/keys";
import { serviceApi } from "@/lib/paths";

/**
 * One PATCH of a service from a form: on success the service (and its drift) is fetched again; an
 * API error lands on the form field `place` names, else on the form as a whole.
 */
export function useServicePatch(
  service: ServiceView,
  { onSaved, place, setErrors }: { onSaved: () => void; place: (field: string | undefined, message: string) => { field: string; message: string } | null; setErrors: (e: FieldErrors) => void },
) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (input: unknown) => api<ServiceView>(serviceApi(service), { method: "PATCH", body: input }),
    onSuccess: async () => {
      onSaved();
      await qc.invalidateQueries({ queryKey: keys.service(service) });
    },
    onError: (err) => {
      const placed = err instanceof ApiError ? place(err.field, err.message) : null;
      setErrors(placed ? { [placed.field]: placed.message } : { form: err instanceof ApiError ? err.message : "could not save" });
    },
  });
}
