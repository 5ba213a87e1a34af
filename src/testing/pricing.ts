/** The mock's delivery fee, integer fils (README "What the spec leaves open, and what we chose"). @module */

/** A fee schedule in integer fils. */
export interface FeeSchedule {
  readonly baseFeeFils: number;
  readonly perKmFils: number;
}

/**
 * The exact fee of `distanceKm` to the metre, rounded half-up to the fils. @throws {RangeError} for a bad
 * distance.
 */
export function deliveryFeeFils(schedule: FeeSchedule, distanceKm: number): number {
  if (!Number.isFinite(distanceKm) || distanceKm < 0) {
    throw new RangeError(`distance must be a finite number of km ≥ 0, got ${distanceKm}`);
  }
  const metres = BigInt(Math.round(distanceKm * 1000));
  const distanceFils = (BigInt(schedule.perKmFils) * metres + 500n) / 1000n;
  return schedule.baseFeeFils + Number(distanceFils);
}
