import { ApiReference } from "@/components/api-reference";
import { OPENAPI_PATH } from "@/lib/openapi/operation";

export const metadata = { title: "API reference · Levelrail" };

/** Settings › API reference: every route of /api/v1, rendered from the OpenAPI document the panel serves. */
export default function ApiReferencePage() {
  return (
    <>
      <h1>API reference</h1>
      <p className="muted">
        Every route of the HTTP API, from the OpenAPI 3.1 document at <a href={OPENAPI_PATH}>{OPENAPI_PATH}</a> (generated from the
        schemas the routes validate with). Scripts authenticate with <code>Authorization: Bearer &lt;token&gt;</code>; create one
        with <code>npx levelrail token create</code>. Errors are <code>{'{"error": {"code", "message", "field"}}'}</code>.
      </p>
      <ApiReference />
    </>
  );
}
