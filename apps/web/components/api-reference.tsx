import type { ReactNode } from "react";
import { openApiDocument } from "@/lib/openapi/document";

type Schema = Record<string, unknown>;
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string; schema?: Schema }[];
  requestBody?: { content: Record<string, { schema?: Schema }> };
  responses: Record<string, { $ref?: string; description?: string; content?: Record<string, { schema?: Schema }> }>;
};
type Doc = ReturnType<typeof openApiDocument>;

const METHODS = ["get", "post", "put", "patch", "delete"] as const;
/** How deep a schema is drawn inline before it is left at its type. */
const MAX_DEPTH = 4;

const refName = (ref: string) => ref.slice(ref.lastIndexOf("/") + 1);
const anchor = (name: string) => `schema-${name}`;

/** A schema's type in a few words: a link for a named one, `string (uuid)`, `A | B`, `Service[]`. */
function typeOf(s: Schema | undefined): ReactNode {
  if (!s) return "any";
  if (typeof s.$ref === "string") {
    const name = refName(s.$ref);
    return <a href={`#${anchor(name)}`}>{name}</a>;
  }
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return union.map((u, i) => <span key={i}>{i > 0 ? " | " : ""}{typeOf(u)}</span>);
  if (Array.isArray(s.enum)) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "array") return <>{typeOf(s.items as Schema | undefined)}[]</>;
  const type = Array.isArray(s.type) ? s.type.join(" | ") : typeof s.type === "string" ? s.type : "any";
  return typeof s.format === "string" ? `${type} (${s.format})` : type;
}

/** An object schema's fields as a nested list; anything else as its type. */
function SchemaView({ schema, depth = 0 }: { schema: Schema | undefined; depth?: number }) {
  const props = schema?.properties as Record<string, Schema> | undefined;
  if (!schema || !props || depth >= MAX_DEPTH) return <code>{typeOf(schema)}</code>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  return (
    <ul className="api-fields">
      {Object.entries(props).map(([name, p]) => (
        <li key={name}>
          <code>{name}</code>
          {required.has(name) ? "" : "?"}: <code>{typeOf(p)}</code>
          {typeof p.description === "string" ? <span className="muted"> — {p.description}</span> : null}
          {p.properties ? <SchemaView schema={p} depth={depth + 1} /> : null}
        </li>
      ))}
    </ul>
  );
}

function OperationView({ method, path, o }: { method: string; path: string; o: Operation }) {
  const body = o.requestBody ? Object.entries(o.requestBody.content)[0] : undefined;
  return (
    <details className={`api-op api-op-${method}`} id={o.operationId}>
      <summary>
        <span className="api-method">{method.toUpperCase()}</span> <code className="api-path">{path}</code> <span>{o.summary}</span>
      </summary>
      {o.description ? <p>{o.description}</p> : null}
      {o.parameters?.length ? (
        <>
          <h4>Parameters</h4>
          <ul className="api-fields">
            {o.parameters.map((p) => (
              <li key={`${p.in}:${p.name}`}>
                <code>{p.name}</code> ({p.in}{p.required ? ", required" : ""}): <code>{typeOf(p.schema)}</code>
                {p.description ? <span className="muted"> — {p.description}</span> : null}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {body ? (
        <>
          <h4>Body ({body[0]})</h4>
          <code>{typeOf(body[1].schema)}</code>
        </>
      ) : null}
      <h4>Responses</h4>
      <ul className="api-fields">
        {Object.entries(o.responses).map(([status, r]) => {
          const content = r.content ? Object.entries(r.content) : [];
          return (
            <li key={status}>
              <code>{status}</code> {r.$ref ? refName(r.$ref) : r.description}
              {content.map(([type, c]) => (
                <span key={type}>
                  {" "}
                  <span className="muted">{type}</span> <code>{typeOf(c.schema)}</code>
                </span>
              ))}
            </li>
          );
        })}
      </ul>
    </details>
  );
}

/**
 * The API reference, drawn on the server from the panel's own OpenAPI document: every operation by
 * tag, opened in place (no script), each naming its body and answers by schema, and every schema
 * once below, always shown (a link to it scrolls there). Nothing is fetched from anywhere, and the page ships no JavaScript of its own.
 */
export function ApiReference({ doc = openApiDocument() }: { doc?: Doc }) {
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const byTag = new Map<string, { method: string; path: string; o: Operation }[]>();
  for (const [path, item] of Object.entries(paths)) {
    for (const method of METHODS) {
      const o = item[method];
      if (!o) continue;
      const tag = o.tags?.[0] ?? "Other";
      if (!byTag.has(tag)) byTag.set(tag, []);
      byTag.get(tag)!.push({ method, path, o });
    }
  }
  const schemas = doc.components.schemas as Record<string, Schema>;
  return (
    <div className="api-reference">
      <p>
        <strong>{doc.info.title}</strong> (version {doc.info.version}). {doc.info.description}
      </p>
      <nav className="api-tags">
        {[...byTag.keys()].map((tag) => (
          <a key={tag} href={`#tag-${tag.replace(/\W+/g, "-")}`}>
            {tag}
          </a>
        ))}
        <a href="#schemas">Schemas</a>
      </nav>
      {[...byTag.entries()].map(([tag, ops]) => (
        <section key={tag} id={`tag-${tag.replace(/\W+/g, "-")}`}>
          <h2>{tag}</h2>
          {ops.map((x) => (
            <OperationView key={`${x.method} ${x.path}`} {...x} />
          ))}
        </section>
      ))}
      <section id="schemas">
        <h2>Schemas</h2>
        {Object.entries(schemas).map(([name, schema]) => (
          <section key={name} id={anchor(name)} className="api-schema">
            <h3>
              <code>{name}</code>
              {typeof schema.description === "string" ? <span className="muted"> — {schema.description}</span> : null}
            </h3>
            <SchemaView schema={schema} />
          </section>
        ))}
      </section>
    </div>
  );
}
