/**
 * `list_branches`: the pickup branches, whose names are the `selectedBranch` values of a booking (README
 * "Agents (MCP)"; OpenAPI `listBranches`).
 */
import * as z from 'zod/mini';
import { MAX_FIELD_CHARS } from '../task-view.js';
import { cut } from '../text.js';
import { defineTool } from '../tool.js';

/** Branches shown at most. */
export const MAX_BRANCHES = 200;

const Branch = z.object({
  name: z.string(),
  id: z.optional(z.string()),
  address: z.optional(z.string()),
  latitude: z.optional(z.number()),
  longitude: z.optional(z.number()),
});

const bounded = (text: string) => cut(text, MAX_FIELD_CHARS);

/** `list_branches`. */
export const listBranches = defineTool({
  name: 'list_branches',
  title: 'List pickup branches',
  description:
    'Lists the pickup branches. A booking picks up at one with customPickup: true and selectedBranch: <name>; ' +
    'its coordinates are the "from" of the estimate for that booking.',
  permission: 'read',
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  input: z.strictObject({}),
  output: z.object({ branches: z.array(Branch), truncated: z.boolean() }),
  async run(_input, session, signal) {
    // Redacted before the fields are cut, so no part of a secret is left at a cut.
    const all = session.redact(await session.client.branches.list({ signal }));
    const branches = all.slice(0, MAX_BRANCHES).map((branch) => {
      const source = branch as Record<string, unknown>;
      const shown: z.infer<typeof Branch> = { name: bounded(branch.name) };
      if (typeof source.id === 'string') shown.id = bounded(source.id);
      if (typeof source.address === 'string') shown.address = bounded(source.address);
      if (typeof source.latitude === 'number' && Number.isFinite(source.latitude))
        shown.latitude = source.latitude;
      if (typeof source.longitude === 'number' && Number.isFinite(source.longitude))
        shown.longitude = source.longitude;
      return shown;
    });
    return { branches, truncated: all.length > MAX_BRANCHES };
  },
});
