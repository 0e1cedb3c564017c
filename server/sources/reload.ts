// The running source manager lives on globalThis: Next's route bundles load their own copy of every module, and
// routers must not import the manager (it pulls in every source's I/O code).
const key = Symbol.for("switchyard.sources");
type Reloadable = { reload(): Promise<void> | void };
const holder = () => globalThis as unknown as Record<symbol, Reloadable | undefined>;

/** Make manager the one reloadSources() reaches (null to clear it when it is the current one). */
export function registerSourceManager(manager: Reloadable | null, current?: Reloadable): void {
  if (manager) holder()[key] = manager;
  else if (holder()[key] === current) delete holder()[key];
}

/** Ask the running manager (if this process has one) to pick up a source change. */
export function reloadSources(): void {
  void holder()[key]?.reload();
}
