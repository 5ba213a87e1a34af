/** The public surface: every name the design fixes is exported, typed, and the main entry stays free of msw. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as sdk from '../src/index.js';
import * as testing from '../src/testing.js';

describe('the main entry', () => {
  it('exports the client, kwd, every error class, the schemas and the webhook API', () => {
    const expected = [
      'DeliveryClient',
      'kwd',
      'DeliveryError',
      'APIError',
      'BadRequestError',
      'AuthenticationError',
      'PermissionDeniedError',
      'NotFoundError',
      'ConflictError',
      'UnprocessableEntityError',
      'RateLimitError',
      'InternalServerError',
      'InsufficientBalanceError',
      'APIConnectionError',
      'APIConnectionTimeoutError',
      'APIUserAbortError',
      'RequestValidationError',
      'ResponseValidationError',
      'ConfigurationError',
      'TaskCreationOutcomeUnknownError',
      'DuplicateTaskError',
      'WebhookPayloadError',
      'Task',
      'TaskStatus',
      'StatusHistoryEntry',
      'Driver',
      'SellerDetail',
      'Coordinates',
      'AddressDetails',
      'AddressEntry',
      'TravelDetail',
      'WebhookTask',
      'parseWebhookEvent',
      'createWebhookHandler',
      'TaskPage',
      'TaskListPromise',
    ];
    for (const name of expected) expect(sdk, name).toHaveProperty(name);
    expect(testing).toHaveProperty('createMockDeliveryService');
    expect(Object.keys(sdk)).not.toContain('createMockDeliveryService');
  });

  it('exports the error classes and no is…Error guard: each class is named by its kind', () => {
    expect(Object.keys(sdk).filter((name) => /^is[A-Z]\w*Error$/.test(name))).toEqual([]);
    const errorNames = Object.keys(sdk).filter((name) => name.endsWith('Error'));
    expect(errorNames).toHaveLength(25);
    for (const name of errorNames) {
      const errorClass: { errorKind?: unknown; prototype?: unknown } =
        (sdk as unknown as Record<string, object>)[name] ?? {};
      expect(
        errorClass === (sdk.DeliveryError as object) || errorClass.prototype instanceof sdk.DeliveryError,
        name,
      ).toBe(true);
      expect(Object.hasOwn(errorClass, 'errorKind') && errorClass.errorKind, name).toBe(name);
    }
    expectTypeOf<sdk.DeliveryErrorName>().toEqualTypeOf<Extract<keyof typeof sdk, `${string}Error`>>();
  });

  it('never imports msw, directly or through another module', () => {
    const files: string[] = [];
    const walk = (directory: string) => {
      for (const entry of readdirSync(directory, { withFileTypes: true })) {
        const path = join(directory, entry.name);
        if (entry.isDirectory() && entry.name !== 'testing') walk(path);
        else if (entry.isFile() && path.endsWith('.ts')) files.push(path);
      }
    };
    walk('src');
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(readFileSync(file, 'utf8'), file).not.toMatch(/from ['"]msw/);
  });

  it('types the surface without any', () => {
    expectTypeOf<sdk.Task>().not.toBeAny();
    expectTypeOf<sdk.TaskStatus>().toEqualTypeOf<
      'pending' | 'requested' | 'accepted' | 'pickedup' | 'enroute' | 'delivered' | 'cancelled' | 'rejected' | 'failed'
    >();
    expectTypeOf<sdk.TaskCreateParams['deliveryLocation']>().toEqualTypeOf<
      { latitude: number; longitude: number; fullAddress?: string[] | undefined } | undefined
    >();
    expectTypeOf<sdk.TaskListParams['sortOrder']>().toEqualTypeOf<1 | -1 | undefined>();
    expectTypeOf<sdk.RequestOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<sdk.APIError['status']>().toEqualTypeOf<number>();
    expectTypeOf<sdk.WebhookEvent['taskId']>().toEqualTypeOf<string>();
    expectTypeOf(sdk.kwd.toFils).returns.toEqualTypeOf<number>();
    expectTypeOf<
      ReturnType<typeof testing.createMockDeliveryService>['advance']
    >().returns.resolves.toEqualTypeOf<sdk.Task>();
  });
});
