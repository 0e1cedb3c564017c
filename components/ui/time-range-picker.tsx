"use client";
import { useState, useSyncExternalStore } from "react";
import { viewerTimeZone } from "@/components/format";
import { PRESETS, type Preset, type RangeSpec } from "@/lib/time-range";

const toLocalInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

const noSubscription = () => () => {};

/** Preset buttons (5 m … 7 d), a custom from/to range, and the time zone every time on the page is shown in. */
export function TimeRangePicker({
  value,
  onChange,
  presets = Object.keys(PRESETS) as Preset[],
}: {
  value: RangeSpec;
  onChange: (next: RangeSpec) => void;
  /** The preset buttons shown (default all). */
  presets?: readonly Preset[];
}) {
  const [custom, setCustom] = useState(false);
  const now = Date.now();
  const [from, setFrom] = useState(toLocalInput("from" in value ? value.from : now - 3_600_000));
  const [to, setTo] = useState(toLocalInput("to" in value ? value.to : now));
  const [error, setError] = useState<string | null>(null);
  // The viewer's zone is known only in the browser; the server renders no label rather than its own zone.
  const zone = useSyncExternalStore(noSubscription, viewerTimeZone, () => null);

  const apply = () => {
    const f = new Date(from).getTime();
    const t = new Date(to).getTime();
    if (!Number.isFinite(f) || !Number.isFinite(t)) return setError("Enter both dates.");
    if (t <= f) return setError("“To” must be after “from”.");
    setError(null);
    onChange({ from: f, to: t });
  };

  return (
    <div className="range-picker" role="group" aria-label="Time range">
      {presets.map((p) => (
        <button
          key={p}
          type="button"
          aria-pressed={"preset" in value && value.preset === p}
          onClick={() => onChange({ preset: p })}
        >
          {p}
        </button>
      ))}
      <button
        type="button"
        aria-pressed={!("preset" in value)}
        aria-expanded={custom}
        onClick={() => setCustom((c) => !c)}
      >
        Custom
      </button>
      {zone && (
        <span className="sub" data-testid="time-zone" title="Times on this page are in this time zone">
          {zone}
        </span>
      )}
      {custom && (
        <>
          <label>
            <span className="sub">From </span>
            <input type="datetime-local" value={from} onChange={(e) => setFrom(e.target.value)} />
          </label>
          <label>
            <span className="sub">To </span>
            <input type="datetime-local" value={to} onChange={(e) => setTo(e.target.value)} />
          </label>
          <button type="button" onClick={apply}>
            Apply
          </button>
          {error && (
            <span role="alert" className="sub">
              {error}
            </span>
          )}
        </>
      )}
    </div>
  );
}
