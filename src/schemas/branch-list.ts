/**
 * `BranchListResponse`, every accepted shape of the answer to `GET tasks/branches`, for the schemas entry and
 * the OpenAPI document. The client reads the answer with `readBranches` and does not load this module
 * (zod's union is about 390 bytes of a bundle).
 * @module
 */
import * as z from 'zod/mini';
import { Branch } from './branch.js';

const BranchArray = z.array(z.union([Branch, z.string()]));

/** Every accepted response shape (validated as is; the client normalises it to `Branch[]`). */
export const BranchListResponse = z.union([
  BranchArray,
  z.looseObject({ branches: BranchArray }),
  z.looseObject({ data: BranchArray }),
]);
export type BranchListResponse = z.infer<typeof BranchListResponse>;
