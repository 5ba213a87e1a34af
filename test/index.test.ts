/**
 * The public surface: the main entry holds what a merchant writes against (at most 60 names), the schemas
 * have their own entry, the tools' needs theirs, and the main entry stays free of msw.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as sdk from '../src/index.js';
import * as internal from '../src/internal.js';
import * as schemas from '../src/schemas.js';
import * as testing from '../src/testing.js';
import type { WebhookEvent } from '../src/webhooks.js';
import * as webhooks from '../src/webhooks.js';

/** The names an entry exports, types included, as its declarations show them. */
function exportedNames(entry: string): string[] {
  const program = ts.createProgram([entry], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(entry);
  const module = source && checker.getSymbolAtLocation(source);
  return module ? checker.getExportsOfModule(module).map((symbol) => symbol.name) : [];
}

describe('the main entry', () => {
  it('exports the client, kwd, every error class and the pagination classes', () => {
    const expected = [
      'DeliveryClient',
      'APIPromise',
      'kwd',
      'memoryStore',
      'Tasks',
      'Branches',
      'Wallet',
      'TaskPage',
      'TaskListPromise',
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
      'ResponseTooLargeError',
      'ConfigurationError',
      'TaskCreationOutcomeUnknownError',
      'DuplicateTaskError',
      'PaginationLimitError',
      'StatusWaitTimeoutError',
      'StoreUnavailableError',
    ];
    for (const name of expected) expect(sdk, name).toHaveProperty(name);
    expect(testing).toHaveProperty('createMockDeliveryService');
    expect(Object.keys(sdk)).not.toContain('createMockDeliveryService');
  });

  it('holds at most 60 names, types included', () => {
    const names = exportedNames('src/index.ts');
    expect(names).toContain('DeliveryClient');
    expect(names).toContain('TaskCreateParams');
    expect(names.length).toBeLessThanOrEqual(60);
  });

  it('leaves the schemas to delivery-task-sdk/schemas and what only the tools need to /internal', () => {
    for (const name of [
      'Task',
      'TaskCreateParams',
      'TASK_STATUSES',
      'MAX_PAGE_SIZE',
      'createWebhookHandler',
    ]) {
      expect(Object.keys(sdk), name).not.toContain(name);
    }
    for (const name of [
      'storeKey',
      'withStoreDeadline',
      'Redactor',
      'REDACTED',
      'sellerIdOf',
      'redactorOf',
    ]) {
      expect(Object.keys(sdk), name).not.toContain(name);
    }
    for (const name of ['Task', 'TaskCreateParams', 'TASK_STATUSES', 'isFinalStatus', 'WebhookTask']) {
      expect(schemas, name).toHaveProperty(name);
    }
    for (const name of ['clientInternalsOf', 'storeKey', 'Redactor', 'readBody', 'nestsDeeperThan']) {
      expect(internal, name).toHaveProperty(name);
    }
  });

  it("exports the error classes (the webhooks' in /webhooks) and no is…Error guard: each named by its kind", () => {
    expect(Object.keys(sdk).filter((name) => /^is[A-Z]\w*Error$/.test(name))).toEqual([]);
    const classes: Record<string, unknown> = { ...sdk, ...webhooks };
    const errorNames = Object.keys(classes).filter((name) => name.endsWith('Error'));
    expect(errorNames).toHaveLength(25);
    for (const name of errorNames) {
      const errorClass = (classes[name] ?? {}) as { errorKind?: unknown; prototype?: unknown };
      expect(
        errorClass === (sdk.DeliveryError as object) || errorClass.prototype instanceof sdk.DeliveryError,
        name,
      ).toBe(true);
      expect(Object.hasOwn(errorClass, 'errorKind') && errorClass.errorKind, name).toBe(name);
    }
    expectTypeOf<sdk.DeliveryError['name']>().toEqualTypeOf<
      Extract<keyof typeof sdk | keyof typeof webhooks, `${string}Error`>
    >();
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
      | 'pending'
      | 'requested'
      | 'accepted'
      | 'pickedup'
      | 'enroute'
      | 'delivered'
      | 'cancelled'
      | 'rejected'
      | 'failed'
    >();
    expectTypeOf<sdk.TaskCreateParams['deliveryLocation']>().toEqualTypeOf<
      { latitude: number; longitude: number; fullAddress?: string[] | undefined } | undefined
    >();
    expectTypeOf<schemas.TaskListParams['sortOrder']>().toEqualTypeOf<1 | -1 | undefined>();
    expectTypeOf<sdk.RequestOptions['signal']>().toEqualTypeOf<AbortSignal | undefined>();
    expectTypeOf<sdk.APIError['status']>().toEqualTypeOf<number>();
    expectTypeOf<WebhookEvent['taskId']>().toEqualTypeOf<string>();
    expectTypeOf(sdk.kwd.toFils).returns.toEqualTypeOf<number>();
    expectTypeOf<
      ReturnType<typeof testing.createMockDeliveryService>['advance']
    >().returns.resolves.toEqualTypeOf<sdk.Task>();
  });
});
