import { POSTGRES } from "../../test/stores";
import { alertsCases } from "./alerts.cases";

alertsCases(POSTGRES);
