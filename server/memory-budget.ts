import type { CompiledName } from "./compiled";

// placeholder, filled in after measuring
export function processNodeArgs(_which: CompiledName): string[] {
  return [];
}
