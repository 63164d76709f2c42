"use client";
import dynamic from "next/dynamic";
import "swagger-ui-react/swagger-ui.css";

/**
 * The API reference: Swagger UI (swagger-ui-react, bundled with the panel, so nothing is fetched from
 * anywhere but the panel itself) rendering the panel's own OpenAPI document. Client-only: Swagger UI
 * reads `window`. "Try it out" calls the API with the browser's session, like the panel's own pages.
 */
const SwaggerUI = dynamic(() => import("swagger-ui-react"), { ssr: false, loading: () => <p className="muted">Loading the API reference…</p> });

export function ApiReference({ url }: { url: string }) {
  return (
    <div className="api-reference">
      <SwaggerUI url={url} docExpansion="list" defaultModelsExpandDepth={0} tryItOutEnabled={false} deepLinking />
    </div>
  );
}
