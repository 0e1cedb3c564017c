import { CAUSE_LABEL, causeShares, causeText } from "@/components/charts/prepare/causes";
import type { CauseTokens } from "@/lib/attribution";

/** A small stacked bar of recomputed tokens by cause, with the numbers as its accessible name. */
export function CauseBar({ causes }: { causes: CauseTokens }) {
  const text = causeText(causes);
  return (
    <span className="cause-bar" role="img" aria-label={`Recomputed: ${text}`} title={text}>
      {causeShares(causes).map((s) =>
        s.share > 0 ? (
          <span
            key={s.cause}
            className={`c-${s.cause}`}
            style={{ width: `${s.share * 100}%` }}
            title={CAUSE_LABEL[s.cause]}
          />
        ) : null,
      )}
    </span>
  );
}
