import { SQLITE } from "../../test/stores";
import { alertsCases } from "./alerts.cases";

alertsCases(SQLITE);
