import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { afterEach, describe, expect, it } from "vitest";
import { refreshAfterWrite } from "./refresh-after-write";

// A list whose first load reads the store before a write lands and answers after it: what the admin page's user list
// did when an invite was sent while the page was still loading.
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

/** Answer the list's fetches until `work` is done (the first load too), then what the page would show. */
async function settled(
  observer: { getCurrentResult(): { data: string[] | undefined } },
  answerAll: () => void,
  work: Promise<unknown>,
) {
  let done = false;
  void work.finally(() => (done = true));
  for (let i = 0; i < 50 && !done; i++) {
    answerAll();
    await new Promise((r) => setTimeout(r, 0));
  }
  expect(done).toBe(true);
  return observer.getCurrentResult().data;
}

describe("refreshAfterWrite", () => {
  let qc: QueryClient;
  let unsubscribe = () => {};
  afterEach(() => {
    unsubscribe();
    qc.clear();
  });

  function mount(fetchList: () => Promise<string[]>) {
    qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
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
    expect(await settled(observer, list.answerAll, refreshed)).toEqual(["alice", "vince"]);
  });

  it("(why: invalidateQueries alone keeps the first load's answer, read before the write)", async () => {
    const list = slowList();
    const observer = mount(list.fetchList);
    list.stored.push("vince");
    const invalidated = qc.invalidateQueries({ queryKey: ["users"] });
    expect(await settled(observer, list.answerAll, invalidated)).toEqual(["alice"]);
  });

  it("refetches a list that has loaded, and leaves other queries alone", async () => {
    const list = slowList();
    const observer = mount(list.fetchList);
    expect(await settled(observer, list.answerAll, observer.refetch())).toEqual(["alice"]);
    let otherFetches = 0;
    const other = new QueryObserver(qc, { queryKey: ["tokens"], queryFn: async () => ++otherFetches });
    const stop = other.subscribe(() => {});
    await new Promise((r) => setTimeout(r, 0));
    list.stored.push("vince");
    const refreshed = refreshAfterWrite(qc, { queryKey: ["users"] });
    expect(await settled(observer, list.answerAll, refreshed)).toEqual(["alice", "vince"]);
    expect(otherFetches).toBe(1);
    stop();
  });
});
