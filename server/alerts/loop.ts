import { alertReceivers, alertStates } from "../../db/store/alerts";
import type { Store } from "../../db/store/store";
import { openStoredSecret } from "../auth/stored-secrets";
import { startPasses } from "../control/passes";
import { errorMessage, log } from "../observability/logger";
import { metrics } from "../observability/metrics";
import type { OutboundFetch } from "../outbound/fetch";
import { evaluateAlerts } from "./job";
import { Outbox, type Receiver } from "./outbox";
import { SEVERITIES } from "../../lib/alerts/rules";

// The leader's alert loop: evaluate every SWITCHYARD_ALERT_EVALUATE_SECONDS, then deliver without waiting (a receiver
// that is down slows nothing). The outbox lives on the leader; what is firing is in the store, so a new leader
// re-sends it at its first evaluation after the resend interval.

/** The enabled receivers, secrets opened (a receiver whose secret cannot be opened is left out and logged). */
export async function enabledReceivers(s: Store, key?: Buffer): Promise<Receiver[]> {
  const out: Receiver[] = [];
  for (const r of await alertReceivers(s)) {
    if (!r.enabled) continue;
    if (r.kind === "alertmanager") out.push({ id: r.id, kind: "alertmanager", url: r.url });
    else
      try {
        out.push({ id: r.id, kind: "webhook", url: r.url, secret: openStoredSecret(r.secret ?? "", key) });
      } catch (err) {
        log().warn({ receiver: r.id, err: errorMessage(err) }, "alert receiver's secret cannot be opened: skipped");
      }
  }
  return out;
}

/** Outboxes by process: the Alerts page of the leader reads delivery state from here. */
const holder = Symbol.for("switchyard.alertOutbox");
type Holder = { [holder]?: Outbox };

/** The leader's outbox, when this process runs the alert loop. */
export function leaderOutbox(): Outbox | undefined {
  return (globalThis as Holder)[holder];
}

export function startAlertLoop(
  s: Store,
  opts: { everyMs: number; baseUrl: string; send: OutboundFetch; now?: () => number },
): () => Promise<void> {
  const now = opts.now ?? Date.now;
  const outbox = new Outbox(opts.send, opts.baseUrl, now);
  (globalThis as Holder)[holder] = outbox;
  const m = metrics();
  const stop = startPasses(
    "alerts",
    async () => {
      const receivers = await enabledReceivers(s);
      const r = await evaluateAlerts(s, outbox, receivers, now());
      m.alertEvaluations.inc({ outcome: r.failed.length ? "failed" : "ok" });
      if (r.failed.length)
        log().warn({ rules: r.failed }, "alert rules whose figures could not be read kept their states");
      if (r.fired || r.resolved) log().info({ fired: r.fired, resolved: r.resolved }, "alerts changed");
      const firing = await alertStates(s);
      for (const sev of SEVERITIES)
        m.alertsFiring.set({ severity: sev }, firing.filter((a) => a.state === "firing" && a.severity === sev).length);
      void outbox.flush(receivers).then(() => {
        for (const rc of receivers) {
          const st = outbox.state(rc.id);
          for (const k of ["sent", "failed", "dropped", "queued"] as const)
            m.alertDeliveries.set({ receiver: rc.id, state: k }, st[k]);
        }
      });
    },
    opts.everyMs,
  );
  return async () => {
    await stop();
    delete (globalThis as Holder)[holder];
  };
}
