import type { PolicyError } from "@/lib/policies/policies";

export type Refusal = { message: string; errors: PolicyError[] };

/** A refused document's message and its field errors (path: message), as an alert. */
export function RefusalNotice({ refused, title }: { refused: Refusal; title?: string }) {
  return (
    <div className="notice error" role="alert">
      {title && <h2>{title}</h2>}
      <p>{refused.message}</p>
      {refused.errors.length > 0 && (
        <ul>
          {refused.errors.map((e, i) => (
            <li key={i}>
              <code>{e.path || "(document)"}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
