import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { refreshAfterWrite } from "./refresh-after-write";

// A list whose first load reads the store before a write lands and answers only after the page has asked for the
// refresh: what the admin page's user list did when an invite was answered while the page was still loading.
function slowList() {
  const stored = ["alice"];
  const pending: (() => void)[] = [];
  const fetchList = () => {
    const snapshot = [...stored];
    return new Promise<string[]>((resolve) => pending.push(() => resolve(snapshot)));
  };
  const answerAll = () => pending.splice(0).forEach((answer) => answer());
  return { stored, fetchList, answerAll };
}

const tick = () => new Promise((r) => setTimeout(r, 0));

/**
 * Answer the list's fetches, none before `ready()` (the refresh has been asked for), until `work` is done; then what
 * the page shows.
 */
async function settled(
  observer: { getCurrentResult(): { data: string[] | undefined } },
  answerAll: () => void,
  work: Promise<unknown>,
  ready: () => boolean = () => true,
) {
  let done = false;
  void work.finally(() => (done = true));
  for (let i = 0; i < 50 && !done; i++) {
    if (ready()) answerAll();
    await tick();
  }
  expect(done).toBe(true);
  return observer.getCurrentResult().data;
}

describe("refreshAfterWrite", () => {
  let qc: QueryClient;
  let unsubscribe = () => {};
  /** Whether invalidateQueries has been called on qc (the refresh asked for). */
  let invalidated = false;
  afterEach(() => {
    unsubscribe();
    qc.clear();
  });

  function mount(fetchList: () => Promise<string[]>) {
    qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    invalidated = false;
    const invalidate = qc.invalidateQueries.bind(qc);
    qc.invalidateQueries = (...args: Parameters<QueryClient["invalidateQueries"]>) => {
      invalidated = true;
      return invalidate(...args);
    };
    const observer = new QueryObserver(qc, { queryKey: ["users", "list"], queryFn: fetchList });
    unsubscribe = observer.subscribe(() => {});
    return observer;
  }

  it("shows a write made while the list's first load is in flight", async () => {
    const list = slowList();
    const observer = mount(list.fetchList);
    expect(observer.getCurrentResult().fetchStatus).toBe("fetching");
    list.stored.push("vince");
    const refreshed = refreshAfterWrite(qc, { queryKey: ["users"] });
    expect(await settled(observer, list.answerAll, refreshed, () => invalidated)).toEqual(["alice", "vince"]);
  });

  it("(why: invalidateQueries alone keeps the first load's answer, read before the write)", async () => {
    const list = slowList();
    const observer = mount(list.fetchList);
    list.stored.push("vince");
    const refreshed = qc.invalidateQueries({ queryKey: ["users"] });
    expect(await settled(observer, list.answerAll, refreshed, () => invalidated)).toEqual(["alice"]);
  });

  it("refetches a list that has loaded, and leaves other queries alone", async () => {
    const list = slowList();
    const observer = mount(list.fetchList);
    expect(await settled(observer, list.answerAll, observer.refetch())).toEqual(["alice"]);
    let otherFetches = 0;
    const other = new QueryObserver(qc, { queryKey: ["tokens"], queryFn: async () => ++otherFetches });
    const stop = other.subscribe(() => {});
    await tick();
    list.stored.push("vince");
    const refreshed = refreshAfterWrite(qc, { queryKey: ["users"] });
    expect(await settled(observer, list.answerAll, refreshed)).toEqual(["alice", "vince"]);
    expect(otherFetches).toBe(1);
    stop();
  });
});
