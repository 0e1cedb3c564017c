export * from "./workers";
export * from "./kv";
export * from "./routing";
export * from "./requests";
export * from "./tools";
export * from "./planner";
export * from "./policies";
export * from "./settings";
