export * from "./workers";
export * from "./events";
export * from "./requests";
export * from "./auth";
export * from "./control";
export * from "./rollups";
export * from "./attribution";
