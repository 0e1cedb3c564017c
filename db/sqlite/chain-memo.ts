import type { Chains } from "./chains";

// A bounded memo of full chains (db/sqlite/chains.ts): built chains kept per connection, newest last.

/** Full chains recently built, per connection: newest last, bounded in bytes, so consecutive turns do not re-walk. */
export class ChainMemo {
  private map = new Map<string, Chains>();
  private bytes = 0;
  constructor(private readonly maxBytes: number) {}
  get(id: string): Chains | undefined {
    return this.map.get(id);
  }
  set(id: string, c: Chains): void {
    const size = (c.seq?.byteLength ?? 0) + (c.local?.byteLength ?? 0);
    if (size > this.maxBytes || this.map.has(id)) return;
    this.map.set(id, c);
    this.bytes += size;
    for (const [k, v] of this.map) {
      if (this.bytes <= this.maxBytes) break;
      this.map.delete(k);
      this.bytes -= (v.seq?.byteLength ?? 0) + (v.local?.byteLength ?? 0);
    }
  }
  delete(id: string): void {
    const c = this.map.get(id);
    if (!c) return;
    this.map.delete(id);
    this.bytes -= (c.seq?.byteLength ?? 0) + (c.local?.byteLength ?? 0);
  }
  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}
