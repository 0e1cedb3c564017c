import { POSTGRES_PAGES } from "../../test/page-stores";
import { previewsCases } from "./previews.cases";

// The previews procedures on PostgreSQL: the window replayed is read from PostgreSQL, the result kept there.

previewsCases(POSTGRES_PAGES);
