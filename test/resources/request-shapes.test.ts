/**
 * Request types and run-time checks agree: a delivery or pickup location (which has `fullAddress`) is a
 * point of an estimate at run time as it is at compile time; its address lines are dropped before sending,
 * with a debug log. Unknown fields are still refused, and rejected by the type where TypeScript can tell.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { RequestValidationError, type TaskCreateParams } from '../../src/index.js';
import type { DeliveryLocation, EstimateParams, PickupLocation } from '../../src/schemas.js';
import { useMockService } from '../support/mock-service.js';

const { mock, client } = useMockService();

const FROM = { latitude: 29.3759, longitude: 47.9774 };

describe('an estimate to a delivery location', () => {
  it('accepts a DeliveryLocation as a point, sends only the coordinates, and logs what it dropped', async () => {
    const order: { destination: DeliveryLocation; pickup: PickupLocation } = {
      destination: { latitude: 29.3339, longitude: 48.0761, fullAddress: ['Block 10, Street 5', 'Salmiya'] },
      pickup: { ...FROM, fullAddress: ['Main branch'] },
    };
    const lines: string[] = [];
    const logger = {
      debug: (line: string) => lines.push(line),
      info: () => {},
      warn: () => {},
      error: () => {},
    };
    const estimate = await client({ logLevel: 'debug', logger }).tasks.estimate({
      from: order.pickup,
      to: order.destination,
    });
    expect(estimate.price).toBeGreaterThan(0);
    const [request] = mock.requestsFor('tasks.estimate');
    expect(request?.body).toEqual({ from: FROM, to: { latitude: 29.3339, longitude: 48.0761 } });
    expect(lines.some((line) => /fullAddress/.test(line) && /from, to|from\.fullAddress/.test(line))).toBe(
      true,
    );
    // The caller's objects are left as they were.
    expect(order.destination.fullAddress).toEqual(['Block 10, Street 5', 'Salmiya']);
  });

  it('still refuses unknown fields and a fullAddress that is not address lines, naming them, sending nothing', async () => {
    const unknown = { latitude: 29.3, longitude: 48, floor: 3 };
    const error = await client()
      .tasks.estimate({ from: FROM, to: unknown })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((issue) => issue.path)).toEqual(['to']);
    expect((error as Error).message).toContain('floor');
    const badLines = await client()
      .tasks.estimate({ from: FROM, to: { latitude: 29.3, longitude: 48, fullAddress: 'Salmiya' as never } })
      .catch((caught: unknown) => caught);
    expect((badLines as RequestValidationError).issues[0]?.path).toBe('to.fullAddress');
    expect(mock.requests).toHaveLength(0);
  });

  it('types a location as a point, and rejects an unknown field in a literal', () => {
    expectTypeOf<DeliveryLocation>().toExtend<EstimateParams['to']>();
    expectTypeOf<PickupLocation>().toExtend<EstimateParams['from']>();
    expectTypeOf<EstimateParams['to']>().toExtend<TaskCreateParams['deliveryLocation']>();
    const estimate = (params: EstimateParams) => params;
    // @ts-expect-error: not a field of a point or of a location.
    estimate({ from: FROM, to: { ...FROM, floor: 3 } });
    expect(true).toBe(true);
  });

  it('types selectedBranch as the run-time check reads it: only with customPickup: true', async () => {
    expectTypeOf<{ customPickup: true; selectedBranch: string }>().toExtend<TaskCreateParams>();
    expectTypeOf<{ selectedBranch: string }>().not.toExtend<TaskCreateParams>();
    expectTypeOf<{ customPickup: false; selectedBranch: string }>().not.toExtend<TaskCreateParams>();
    const [branch] = await client().branches.list();
    const created = await client().tasks.create({
      orderNumber: 'ORD-BRANCH',
      customPickup: true,
      selectedBranch: branch?.name ?? 'Main',
    });
    expect(mock.tasks.find((task) => task.id === created.id)?.selectedBranch).toBe(branch?.name ?? 'Main');
  });
});
