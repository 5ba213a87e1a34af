/**
 * {@link ResourceHandle}: opaque, so the declarations of the resources' constructors name only exported
 * types.
 */
import type { ResourceContext } from '../internal/context.js';

declare const resourceHandle: unique symbol;

/**
 * What `DeliveryClient` passes to `Tasks`, `Branches` and `Wallet`; use `client.tasks`, … (README "The
 * client").
 */
export interface ResourceHandle {
  readonly [resourceHandle]: 'built by DeliveryClient';
}

/** @internal */
export const handleOf = (context: ResourceContext): ResourceHandle => context as unknown as ResourceHandle;

/** @internal */
export const contextOf = (handle: ResourceHandle): ResourceContext => handle as unknown as ResourceContext;
