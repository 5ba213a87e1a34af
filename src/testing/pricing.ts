/**
 * The mock's delivery fee: `baseFee + perKm × distance`, in integer fils (README "What the spec leaves open, and what we chose": the minimum wallet balance for a create is the fee).
 * @module
 */

/** A fee schedule in integer fils. */
export interface FeeSchedule {
  /** Fixed part of every fee, fils. */
  readonly baseFeeFils: number;
  /** Price per kilometre, fils. */
  readonly perKmFils: number;
}

/**
 * The fee of a trip of `distanceKm` kilometres, in fils: the distance is taken to the metre, the
 * per-km part is rounded half-up to the fils, and the base fee is added. Exact (integer arithmetic).
 * @throws {RangeError} for a negative or non-finite distance.
 */
export function deliveryFeeFils(schedule: FeeSchedule, distanceKm: number): number {
  if (!Number.isFinite(distanceKm) || distanceKm < 0) {
    throw new RangeError(`distance must be a finite number of km ≥ 0, got ${distanceKm}`);
  }
  const metres = BigInt(Math.round(distanceKm * 1000));
  const distanceFils = (BigInt(schedule.perKmFils) * metres + 500n) / 1000n;
  return schedule.baseFeeFils + Number(distanceFils);
}
