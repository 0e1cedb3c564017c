import type { DiffEntry } from "@/lib/policies/versions";
import { formatValue } from "./drafts";

/** Field-level changes as rows of path, before → after. */
export function DiffTable({
  diff,
  label,
  empty = "No changes.",
}: {
  diff: readonly DiffEntry[];
  label: string;
  empty?: string;
}) {
  if (diff.length === 0) {
    return (
      <p className="sub" role="status">
        {empty}
      </p>
    );
  }
  return (
    <div className="table-wrap">
      <table className="data-table policies-diff" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Before</th>
            <th scope="col" aria-hidden="true" />
            <th scope="col">After</th>
          </tr>
        </thead>
        <tbody>
          {diff.map((d) => (
            <tr key={d.path}>
              <td className="mono">{d.path}</td>
              <td className="mono policies-before">{formatValue(d.before)}</td>
              <td aria-hidden="true">→</td>
              <td className="mono policies-after">{formatValue(d.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
