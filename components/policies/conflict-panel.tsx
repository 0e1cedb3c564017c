import type { FieldValues } from "react-hook-form";
import type { DiffEntry } from "@/lib/policies/versions";
import type { Conflict } from "./drafts";
import { DiffTable } from "./diff-table";

export type ConflictState = Conflict & { document: FieldValues | null; author: string | null; comment: string };

/** A publish refused because someone else published first: their changes, the draft's changes, and the two ways on. */
export function ConflictPanel({
  headingId,
  conflict,
  baseLabel,
  mine,
  onRebase,
  onDiscard,
}: {
  headingId: string;
  conflict: ConflictState;
  baseLabel: string;
  mine: DiffEntry[];
  onRebase: () => void;
  onDiscard: () => void;
}) {
  const v = `v${conflict.latest}`;
  return (
    <section className="notice policies-conflict" role="alert" aria-labelledby={headingId}>
      <h2 id={headingId} tabIndex={-1}>
        Conflict: {v} was published while you were editing
      </h2>
      <p>
        {conflict.author ?? "Another operator"} published {v}
        {conflict.comment ? ` (“${conflict.comment}”)` : ""} after {baseLabel}, the version your draft started from.
        Nothing was published from your draft, and your edits are kept.
      </p>
      <div className="two-col">
        <div>
          <h3>
            Their changes ({baseLabel} → {v})
          </h3>
          <DiffTable diff={conflict.diff} label="Their changes" />
        </div>
        <div>
          <h3>Your edits (kept)</h3>
          <DiffTable diff={mine} label="Your edits" empty="Your draft has no changes." />
        </div>
      </div>
      <div className="policies-actions">
        <button type="button" className="button policies-primary" onClick={onRebase} disabled={!conflict.document}>
          Re-apply my changes on top of {v}
        </button>
        <button type="button" className="button" onClick={onDiscard} disabled={!conflict.document}>
          Discard mine and load {v}
        </button>
      </div>
    </section>
  );
}
