// Moved to lib/counters.ts (db and analysis both need it); this re-export keeps the ingest and attribution imports
// working until they move with issue 13's layering.
export { counterDelta, minuteOf, type CounterDelta, type CounterSample } from "../../lib/counters";
