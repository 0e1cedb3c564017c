import { AppError } from "../../errors";
import { stackPass, type RunSink } from "./stack-pass";
import { emptyResult, type CapacityEmpty } from "./mrc";
import { prepareWindow, type CapacityWindow } from "./window-turns";

// KV on the device with a host (or disk) tier behind it: an exclusive LRU hierarchy of D device blocks and H tier
// blocks holds the top D + H of the stack, the device the top D. A block with stack distance d is on the device iff
// d < D and in the tier iff D ≤ d < D + H. Prefix semantics run through the tier: a turn's cached prefix is its longest
// leading run of blocks held on either (max(d_0..d_i) < D + H); of those, blocks with d < D are served from the
// device and the rest onboarded from the tier; every other token is recomputed. Onboarding time is the tier tokens'
// bytes over the tier's bandwidth, as if read one after another (no overlap with compute).

export type TierOptions = {
  /** Device sizes to try, in blocks (per worker in the worker scope, in all in the shared one). */
  device: readonly number[];
  /** Tier sizes to try behind each device size, in blocks (0: device only). */
  tier: readonly number[];
  scope: "worker" | "shared";
  /** KV bytes per token of the model (e.g. 2 × layers × KV heads × head size × dtype bytes). */
  bytesPerToken: number;
  /** Tier → device read bandwidth, GB/s (1 GB = 1e9 bytes). */
  gbPerSecond: number;
};

/** One (device, tier) pair: token counts, their shares of the window's input tokens (summing to 1), onboarding. */
export type TierCell = {
  deviceBlocks: number;
  tierBlocks: number;
  deviceTokens: number;
  tierTokens: number;
  recomputedTokens: number;
  device: number;
  tier: number;
  recomputed: number;
  /** Seconds spent reading tier tokens over the window, in all. */
  onboardSeconds: number;
  /** Window turns that read from the tier, and their mean onboarding time in ms (null: none did). */
  tierTurns: number;
  onboardMsPerTierTurn: number | null;
};

export type TierGrid =
  | CapacityEmpty
  | {
      empty: null;
      scope: "worker" | "shared";
      blockSize: number;
      turns: number;
      inputTokens: number;
      bytesPerToken: number;
      gbPerSecond: number;
      /** Every device size with every tier size, device sizes outer, both ascending as given. */
      cells: TierCell[];
    };

class TierSink implements RunSink {
  readonly dev: Float64Array;
  readonly tier: Float64Array;
  readonly turnTier: Float64Array;
  readonly tierTurns: Float64Array;

  constructor(
    private d: readonly number[],
    private h: readonly number[],
  ) {
    const n = d.length * h.length;
    this.dev = new Float64Array(n);
    this.tier = new Float64Array(n);
    this.turnTier = new Float64Array(n);
    this.tierTurns = new Float64Array(n);
  }

  run(_cls: number, d0: number, m: number, len: number, tokens: number): void {
    let c = 0;
    for (const D of this.d)
      for (const H of this.h) {
        const lim = D + H;
        if (m < lim) {
          const held = Math.max(0, Math.min(len, lim - d0));
          const onDevice = Math.max(0, Math.min(held, D - d0));
          this.dev[c]! += onDevice * tokens;
          this.turnTier[c]! += (held - onDevice) * tokens;
        }
        c++;
      }
  }

  endTurn(): void {
    for (let c = 0; c < this.turnTier.length; c++) {
      const v = this.turnTier[c]!;
      if (v === 0) continue;
      this.tier[c]! += v;
      this.tierTurns[c]!++;
      this.turnTier[c] = 0;
    }
  }
}

/** Device / tier / recomputed token shares for every (device, tier) pair, from one exact pass over the window. */
export function tierGrid(w: CapacityWindow, opts: TierOptions): TierGrid {
  const sizes = (v: readonly number[], name: string) => {
    if (v.length === 0 || v.length > 32 || v.some((x) => !Number.isInteger(x) || x < 0 || x > 2 ** 31 - 1))
      throw new AppError("BAD_REQUEST", `${name} takes 1–32 whole block counts ≥ 0`);
    return v;
  };
  const d = sizes(opts.device, "device");
  const h = sizes(opts.tier, "tier");
  if (!(opts.bytesPerToken > 0)) throw new AppError("BAD_REQUEST", "bytesPerToken must be above 0");
  if (!(opts.gbPerSecond > 0)) throw new AppError("BAD_REQUEST", "gbPerSecond must be above 0");
  const p = prepareWindow(w);
  if (p.chained === 0) return emptyResult(p);
  const sink = new TierSink(d, h);
  const top = Math.max(...d) + Math.max(...h);
  stackPass(p, opts.scope === "worker" ? { worker: sink } : { shared: sink }, { worker: top, shared: top });
  const bytesPerSecond = opts.gbPerSecond * 1e9;
  const cells: TierCell[] = [];
  let c = 0;
  for (const D of d)
    for (const H of h) {
      const deviceTokens = sink.dev[c]!;
      const tierTokens = sink.tier[c]!;
      const recomputedTokens = p.inputTokens - deviceTokens - tierTokens;
      const onboardSeconds = (tierTokens * opts.bytesPerToken) / bytesPerSecond;
      const share = (v: number) => (p.inputTokens > 0 ? v / p.inputTokens : 0);
      const tierTurns = sink.tierTurns[c]!;
      cells.push({
        deviceBlocks: D,
        tierBlocks: H,
        deviceTokens,
        tierTokens,
        recomputedTokens,
        device: share(deviceTokens),
        tier: share(tierTokens),
        recomputed: p.inputTokens > 0 ? 1 - share(deviceTokens) - share(tierTokens) : 0,
        onboardSeconds,
        tierTurns,
        onboardMsPerTierTurn: tierTurns > 0 ? (onboardSeconds * 1000) / tierTurns : null,
      });
      c++;
    }
  return {
    empty: null,
    scope: opts.scope,
    blockSize: p.blockSize,
    turns: p.counted,
    inputTokens: p.inputTokens,
    bytesPerToken: opts.bytesPerToken,
    gbPerSecond: opts.gbPerSecond,
    cells,
  };
}
