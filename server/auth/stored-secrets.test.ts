import { SQLITE } from "../../test/stores";
import { storedSecretsCases } from "./stored-secrets.cases";

storedSecretsCases(SQLITE);
