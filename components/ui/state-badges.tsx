import { stateBadges } from "@/components/charts/prepare/workers";

/** A worker's state at the end of the range, plus "joined" / "left" when that happened inside it. */
export function StateBadges({
  state,
  joined,
  left,
}: {
  state: "up" | "down" | "stale";
  joined: boolean;
  left: boolean;
}) {
  return (
    <>
      {stateBadges({ state, joined, left }).map((b) => (
        <span key={b.label} className="badge" data-tone={b.tone}>
          {b.label}
        </span>
      ))}
    </>
  );
}
