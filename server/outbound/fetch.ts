import dns, { type LookupAddress, type LookupOptions } from "node:dns";
import { Agent, fetch, type Response } from "undici";
import { outboundFailure, OutboundError, refusalError } from "./failure";
import { checkHost, checkResolved, normalizeAddress, type OutboundPolicy } from "./policy";
import { currentPolicy } from "./settings";

/** Answers of a name lookup, as dns.promises.lookup(host, { all: true }) gives them. */
export type Resolve = (host: string) => Promise<LookupAddress[]>;
export type OutboundInit = {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
  /** The reply body is read up to this many bytes; a longer one fails the request. */
  maxBytes: number;
};
/** Any HTTP answer but a redirect; `text` is for the caller's parsing and its debug log, never for display. */
export type OutboundReply = { status: number; contentType: string; text: string };
/** A request through the outbound policy: throws OutboundError (a fixed reason) for everything but an HTTP answer. */
export type OutboundFetch = (url: string, init: OutboundInit) => Promise<OutboundReply>;

const systemResolve: Resolve = (host) => dns.promises.lookup(host, { all: true });

/** Resolve a host once and check every answer; the addresses returned are the only ones to connect to. */
export async function resolveChecked(
  policy: OutboundPolicy,
  host: string,
  resolve: Resolve = systemResolve,
): Promise<LookupAddress[]> {
  const literal = normalizeAddress(host);
  const answers = literal ? [{ address: literal, family: literal.includes(":") ? 6 : 4 }] : await resolve(host);
  const addresses = answers.map((a) => {
    const address = normalizeAddress(a.address) ?? a.address;
    return { address, family: address.includes(":") ? 6 : 4 };
  });
  const refusal = checkResolved(
    policy,
    host,
    addresses.map((a) => a.address),
  );
  if (refusal) throw refusalError(refusal);
  if (addresses.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: "ENOTFOUND" });
  return addresses;
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** A net.connect lookup that hands the socket only addresses it has checked (no second resolution to rebind). */
export function guardedLookup(policy: OutboundPolicy, resolve: Resolve = systemResolve) {
  return (host: string, options: LookupOptions, callback: LookupCallback): void => {
    resolveChecked(policy, host, resolve)
      .then((all) => {
        const wanted =
          options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all;
        if (wanted.length === 0) throw Object.assign(new Error(`no address for ${host}`), { code: "ENOTFOUND" });
        return wanted;
      })
      .then(
        (wanted) => (options.all ? callback(null, wanted) : callback(null, wanted[0]!.address, wanted[0]!.family)),
        (err: Error) => callback(err, ""),
      );
  };
}

/** A fetch bound to a policy (and, for tests, a resolver); close() ends its pooled connections. */
export function createOutboundFetch(
  policy: OutboundPolicy,
  resolve?: Resolve,
): { fetch: OutboundFetch; close(): Promise<void> } {
  const agent = new Agent({ connect: { lookup: guardedLookup(policy, resolve) } });
  const request: OutboundFetch = async (url, init) => {
    const refusal = URL.canParse(url) ? checkHost(policy, new URL(url).hostname) : null;
    if (refusal) throw refusalError(refusal);
    try {
      const res = await fetch(url, {
        method: init.method ?? "GET",
        headers: init.headers,
        body: init.body,
        redirect: "manual",
        signal: AbortSignal.timeout(init.timeoutMs),
        dispatcher: agent,
      });
      if ((res.status >= 300 && res.status < 400) || res.type === "opaqueredirect") {
        await res.body?.cancel().catch(() => {});
        throw new OutboundError(`redirect not followed (HTTP ${res.status})`);
      }
      const text = await readCapped(res.body, Number(res.headers.get("content-length") ?? 0), init.maxBytes);
      return { status: res.status, contentType: res.headers.get("content-type") ?? "", text };
    } catch (err) {
      throw outboundFailure(err, init.timeoutMs);
    }
  };
  return { fetch: request, close: () => agent.close() };
}

let shared: ReturnType<typeof createOutboundFetch> | undefined;

/** The dashboard's outbound requests (scrapes, policy pushes, alert deliveries), under this process's policy. */
export const outboundFetch: OutboundFetch = (url, init) => {
  shared ??= createOutboundFetch(currentPolicy());
  return shared.fetch(url, init);
};

async function readCapped(body: Response["body"], length: number, maxBytes: number): Promise<string> {
  if (length > maxBytes) {
    await body?.cancel().catch(() => {});
    throw new OutboundError(`response exceeds ${maxBytes} bytes`);
  }
  if (!body) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new OutboundError(`response exceeds ${maxBytes} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
