import { nameProblem } from "@levelrail/spec/checks";

// Apart from form.ts, so the pages whose forms only place the API's errors (form.ts) do not load
// the name rule (@levelrail/spec/checks).

/** A name field checked with the product's name rule: the name, or null after `onError` got the reason. */
export function checkedName(name: string, onError: (message: string | undefined) => void): string | null {
  // The rule of @levelrail/spec/rules' resourceName, without zod (its message is the same).
  const problem = nameProblem(name);
  onError(problem);
  return problem === undefined ? name : null;
}
