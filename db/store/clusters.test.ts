import { SQLITE } from "../../test/stores";
import { clusterCases } from "./clusters.cases";

clusterCases(SQLITE);
