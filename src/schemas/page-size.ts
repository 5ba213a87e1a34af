/**
 * The service's page size, apart from the listing's schemas so that a walk imports no schema for it. @module
 */

/**
 * Largest page the service serves, and its default (README "What the spec leaves open, and what we chose").
 */
export const MAX_PAGE_SIZE = 10;
