// Worker threads do not inherit the TypeScript loader of the server process: load the decode thread through tsx.
import { tsImport } from "tsx/esm/api";

await tsImport("./decode-worker.ts", import.meta.url);
