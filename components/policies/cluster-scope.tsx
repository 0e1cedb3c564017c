"use client";
import { createContext, useContext } from "react";
import { DEFAULT_CLUSTER } from "@/lib/cluster-name";
import type { PolicyKind } from "@/lib/policies/policies";

// The cluster the policies page edits (from the URL's ?cluster=), for the editor, history and impact panels below it,
// and the hand-off of a draft copied to another cluster's editor.

export type PolicyScope = { cluster: string; clusters: readonly string[] };

export const PolicyScopeContext = createContext<PolicyScope>({ cluster: DEFAULT_CLUSTER, clusters: [DEFAULT_CLUSTER] });

export const usePolicyScope = () => useContext(PolicyScopeContext);

/** A document copied from one cluster's editor to another's, waiting for that editor to open. */
export type PolicyCopy = { kind: PolicyKind; from: string; fromVersion: number | null; to: string; document: unknown };

const COPY_KEY = "switchyard.policy-copy";

/** Keep a copy for the other cluster's editor (this tab only). */
export function stashCopy(copy: PolicyCopy): void {
  try {
    sessionStorage.setItem(COPY_KEY, JSON.stringify(copy));
  } catch {
    // Storage refused (private mode, quota): the other editor opens without the copy.
  }
}

/** The copy waiting for this kind's editor of `cluster`, taken (read once), or null. */
export function takeCopy(kind: PolicyKind, cluster: string): PolicyCopy | null {
  try {
    const raw = sessionStorage.getItem(COPY_KEY);
    if (!raw) return null;
    const copy = JSON.parse(raw) as PolicyCopy;
    if (copy.kind !== kind || copy.to !== cluster) return null;
    sessionStorage.removeItem(COPY_KEY);
    return copy;
  } catch {
    return null;
  }
}
