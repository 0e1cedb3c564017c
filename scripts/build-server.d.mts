import type { BuildOptions } from "esbuild";
export const ENTRIES: Record<string, string>;
export function buildOptions(): BuildOptions;
export const SERVER_STAMP: string;
export function buildServer(): Promise<void>;
