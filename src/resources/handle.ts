/**
 * {@link ResourceHandle}: what `DeliveryClient` builds its resources (`client.tasks`,
 * `client.branches`, `client.wallet`) with, as the resources' constructors declare it. Opaque, so the
 * package's declarations name only exported types (an app that infers a type from a resource's
 * constructor can emit its own declarations) and say nothing of the client's internals.
 * @module
 */
import type { ResourceContext } from '../internal/context.js';

declare const resourceHandle: unique symbol;

/**
 * The opaque value `DeliveryClient` passes to the constructors of `Tasks`, `Branches` and `Wallet`.
 * Applications never build one: use `client.tasks`, `client.branches` and `client.wallet` (README
 * "The client").
 */
export interface ResourceHandle {
  readonly [resourceHandle]: 'built by DeliveryClient';
}

/** @internal The handle of a client's resource context (the same object, typed opaque). */
export const handleOf = (context: ResourceContext): ResourceHandle => context as unknown as ResourceHandle;

/** @internal The resource context behind a handle made by {@link handleOf}. */
export const contextOf = (handle: ResourceHandle): ResourceContext => handle as unknown as ResourceContext;
