import { POSTGRES } from "../../test/stores";
import { clusterCases } from "./clusters.cases";

// The cases on PostgreSQL (`npm run test:pg`).
clusterCases(POSTGRES);
