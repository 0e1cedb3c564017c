// Rows the planner query returns (db/store/planner.ts), read by server/analysis/planner.ts.

export type PlannerBucket = {
  role: string;
  /** The model whose planner decided (null: the decisions named none). */
  model: string | null;
  metric: string;
  t: number;
  decisions: number;
  /** Mean of the observed metric over the bucket's decisions. */
  observed: number;
  peak: number;
  /** Thresholds and replicas after the bucket's last decision. */
  up: number;
  down: number;
  replicas: number;
  ups: number;
  downs: number;
};
