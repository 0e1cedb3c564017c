import { startSession, type AgentHost } from "./agent";
import { Session } from "./trajectory";
import type { SessionKind } from "./harness";
import type { Rng } from "./prng";

// Keeps the number of live sessions near the scenario's target: every simulated second it starts
// the missing sessions, spread over the second. Session i draws all its behaviour from its own
// stream, so the same seed gives the same sessions whatever the cache did to their timing.

export class Workload {
  active = 0;
  started = 0;
  private spread: Rng;

  constructor(
    private host: AgentHost,
    private kinds: readonly SessionKind[],
    private root: Rng,
  ) {
    this.spread = root.derive("spread");
  }

  /**
   * Start sessions toward `target`, at most a twentieth of it (and at least 2) per second. The
   * first sessions join a cluster that was already serving them: they bring earlier conversation
   * (cold in the fresh caches), so load is near its steady level within a minute.
   */
  tick(target: number, warmup: boolean): void {
    const deficit = Math.round(target) - this.active;
    if (deficit <= 0) return;
    const n = Math.min(deficit, Math.max(2, Math.ceil(target / 20)));
    for (let k = 0; k < n; k++) {
      const at = this.host.now + ((k + this.spread.next()) / n) * 1000;
      const index = this.started++;
      this.active++;
      this.host.at(at, () => this.begin(index, warmup));
    }
  }

  private begin(index: number, warmup: boolean): void {
    const rng = this.root.derive(`session:${index}`);
    const kind = rng.weighted(this.kinds.map((k) => [k, k.weight] as const));
    const profile = kind.overrides ? { ...kind.profile, ...kind.overrides } : kind.profile;
    const session = new Session(this.host.nextId("s"), index, kind, profile, rng, rng.chance(kind.speculative));
    const history = warmup && kind.interactive ? Math.round(rng.next() * profile.compactAt * 0.5) : 0;
    startSession(this.host, session, history);
  }

  ended(): void {
    this.active--;
  }
}
