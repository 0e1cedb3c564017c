import { POSTGRES } from "../../test/stores";
import { policiesRouterCases } from "./policies-router.cases";

// The policies router on PostgreSQL (`npm run test:pg`): two callers over two pools on one database.
policiesRouterCases(POSTGRES);
