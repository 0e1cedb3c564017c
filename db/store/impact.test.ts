import { SQLITE_SESSIONS } from "../../test/session-stores";
import { impactCases } from "./impact.cases";

impactCases(SQLITE_SESSIONS);
