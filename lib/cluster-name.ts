import { z } from "zod";

// A cluster's name as events, sources, imports and URLs carry it (docs/telemetry-format.md).

/**
 * 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit: it goes into URLs, metric labels and
 * policy scopes as it is.
 */
export const CLUSTER_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const CLUSTER_NAME_RULE = "must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit";

/**
 * The cluster of events that name none, of policies and targets that name none, and of everything stored before
 * clusters existed (its id is 0).
 */
export const DEFAULT_CLUSTER = "default";

/** A cluster name, checked. */
export const clusterName = z.string().regex(CLUSTER_NAME, CLUSTER_NAME_RULE);
