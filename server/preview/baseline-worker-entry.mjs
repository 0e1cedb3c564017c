// Worker threads do not inherit the TypeScript loader of the server process: load the worker through tsx.
import { tsImport } from "tsx/esm/api";

await tsImport("./baseline-worker.ts", import.meta.url);
