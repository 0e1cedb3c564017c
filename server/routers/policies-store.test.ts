import { SQLITE } from "../../test/stores";
import { policiesRouterCases } from "./policies-router.cases";

policiesRouterCases(SQLITE);
