import { SQLITE } from "../../test/stores";
import { controlStoreCases } from "./control-store.cases";

controlStoreCases(SQLITE);
