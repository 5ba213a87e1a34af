/** What a soak run found (`npm run soak`, scripts/soak.ts and scripts/soak-processes.ts). */
export interface SoakReport {
  creates: number;
  tasksCreated: number;
  /** Orders with more than one task. */
  duplicates: number;
  /** Orders whose task exists while the SDK reported a definite failure, or that the SDK reported created but are missing. */
  lostOrders: number;
  feesCharged: number;
  /** How each create ended, by kind. */
  outcomes: Record<string, number>;
  /** Faults injected, by kind. */
  faults: Record<string, number>;
  elapsedMs: number;
  /** Descriptions of the problems found (duplicates, lost orders, fee mismatches, unexpected errors). */
  problems: string[];
}
