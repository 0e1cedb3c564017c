import { POSTGRES } from "../../test/stores";
import { controlStoreClusterCases } from "./control-store-clusters.cases";
import { controlStoreCases } from "./control-store.cases";

// The control plane's cases on PostgreSQL (`npm run test:pg`): two pools on one database, as two dashboards.
controlStoreCases(POSTGRES);
controlStoreClusterCases(POSTGRES);
