import fs from "node:fs/promises";
import path from "node:path";
import {
  ConfinedPathError,
  describePathRule,
  inspectConfinedFolder,
  namePartsOrThrow,
  type Confinement,
} from "../../files/confined-path";
import { importFolder } from "../../files/folders";
import { resolveChecked, type Resolve } from "../../outbound/fetch";
import type { OutboundPolicy } from "../../outbound/policy";
import { currentPolicy } from "../../outbound/settings";

const TCP = /^tcp:\/\/(\[[^\]]+\]|[^:/]+):([0-9]{1,5})$/;

/**
 * The endpoint to connect a ZMQ socket to: a tcp:// host resolved once and checked against the outbound policy, as
 * tcp://<checked address>:<port> (ZMQ then reconnects to that address, never resolving the name again); an ipc://
 * socket is a relative name inside SWITCHYARD_IMPORT_DIR, as ipc://<its path there>. Throws OutboundError when the
 * host is refused, ConfinedPathError when the socket's name is.
 */
export async function checkedEndpoint(
  endpoint: string,
  policy: OutboundPolicy = currentPolicy(),
  resolve?: Resolve,
  ipcFolder: Confinement = ipcConfinement(),
): Promise<string> {
  if (endpoint.startsWith("ipc://")) return `ipc://${await confinedSocket(ipcFolder, endpoint.slice("ipc://".length))}`;
  const tcp = TCP.exec(endpoint);
  if (!tcp) return endpoint;
  const [first] = await resolveChecked(policy, tcp[1]!, resolve);
  return `tcp://${first!.family === 6 ? `[${first!.address}]` : first!.address}:${tcp[2]}`;
}

/** Where ipc:// sockets may be: SWITCHYARD_IMPORT_DIR, refusals naming the endpoint field. */
export function ipcConfinement(field = "config.endpoint"): Confinement {
  return { ...importFolder(), field };
}

/** A socket name's path inside the folder (it may not exist yet): no link at any part, not a folder. */
export async function confinedSocket(c: Confinement, name: string): Promise<string> {
  const parts = namePartsOrThrow(c, name, "file");
  const { dir } = await inspectConfinedFolder(c, parts.slice(0, -1).join("/") || ".");
  const socket = path.join(dir, parts.at(-1)!);
  const st = await fs.lstat(socket).catch(() => null);
  const refuse = (rule: "symlink" | "not-file") =>
    new ConfinedPathError(rule, describePathRule(rule, { field: c.field, setting: c.setting, what: "file" }));
  if (st?.isSymbolicLink()) throw refuse("symlink");
  if (st?.isDirectory()) throw refuse("not-file");
  return socket;
}
