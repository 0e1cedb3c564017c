// Moved to lib/counters.ts (db and analysis both need it); this re-export keeps the attribution job's import
// working until it imports lib/counters.ts itself (issue 13's layering).
export { counterDelta, minuteOf, type CounterDelta, type CounterSample } from "../../lib/counters";
