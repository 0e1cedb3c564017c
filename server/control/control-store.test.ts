import { SQLITE } from "../../test/stores";
import { controlStoreClusterCases } from "./control-store-clusters.cases";
import { controlStoreCases } from "./control-store.cases";

controlStoreCases(SQLITE);
controlStoreClusterCases(SQLITE);
