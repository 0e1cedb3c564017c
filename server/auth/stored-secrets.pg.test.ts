import { POSTGRES } from "../../test/stores";
import { storedSecretsCases } from "./stored-secrets.cases";

// Stored secrets on PostgreSQL (`npm run test:pg`): two pools on one database, as two dashboards.
storedSecretsCases(POSTGRES);
