import type { TelemetryEventInput } from "../ingest/events";
import { LAZY_ID } from "./event-builders";
import type { EventBody } from "./types";

// Where a simulation's events go: each gets its id (the run's prefix, the kind's abbreviation and a sequence number)
// and is handed to the sink in simulated-time order. A sink may take only some kinds; the simulator then skips building
// the others where that costs anything (Simulation.wants).

const ABBREV: Record<string, string> = {
  "worker.up": "wu",
  "worker.down": "wd",
  "worker.stats": "ws",
  "kv.stored": "ks",
  "kv.removed": "kr",
  "kv.cleared": "kc",
  "route.decision": "rd",
  request: "rq",
  tool: "tl",
  reasoning: "rs",
  "planner.decision": "pd",
  "policy.ack": "pa",
};

export class EventSink {
  private sink: (event: TelemetryEventInput) => void = () => {};
  /** The kinds the sink takes (null: every kind). */
  private kinds: ReadonlySet<string> | null = null;
  private seq = 0;

  constructor(private readonly run: string) {}

  /** Send events to `sink`: with `kinds`, only those (their ids are then numbered among themselves). */
  set(sink: (event: TelemetryEventInput) => void, kinds?: readonly TelemetryEventInput["kind"][]): void {
    this.sink = sink;
    this.kinds = kinds ? new Set(kinds) : null;
  }

  /** Whether the sink takes events of `kind`. */
  wants(kind: TelemetryEventInput["kind"]): boolean {
    return this.kinds === null || this.kinds.has(kind);
  }

  emit(body: EventBody): void {
    if (this.kinds !== null && !this.kinds.has(body.kind)) return;
    const id = `${this.run}-${ABBREV[body.kind]}-${++this.seq}`;
    if (LAZY_ID in body) {
      const event = body as unknown as TelemetryEventInput;
      event.id = id;
      this.sink(event);
    } else this.sink({ id, ...body } as TelemetryEventInput);
  }
}
