/** The shape of one MCP tool of the server. */
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/mini';
import type { McpPermission } from './policy.js';
import type { Session } from './session.js';

/** What a tool's `run` returns: data (sent as structured content and JSON text) or a whole result. */
export type ToolOutput = Record<string, unknown> | CallToolResult;

/** One tool. */
export interface McpTool<Input = unknown> {
  readonly name: string;
  readonly title: string;
  /** For the model: what it does, what it needs, what it returns. */
  readonly description: string;
  /** The permission of the policy's `allow` it needs. */
  readonly permission: McpPermission;
  readonly annotations: ToolAnnotations;
  readonly input: z.ZodMiniType<Input>;
  readonly output: z.ZodMiniObject;
  /**
   * Runs the tool. Throws a `Refusal` when a rule stops it, any other error when a call fails; the server
   * turns both into tool errors.
   */
  run(input: Input, session: Session, signal: AbortSignal): Promise<ToolOutput>;
}

/** A tool, its `run` typed by its input schema. */
export function defineTool<Schema extends z.ZodMiniType>(
  tool: Omit<McpTool<z.output<Schema>>, 'input'> & { readonly input: Schema },
): McpTool<z.output<Schema>> {
  return tool as McpTool<z.output<Schema>>;
}

/** JSON Schema of a tool schema, in the draft the MCP SDK's own servers use (draft-07). */
function jsonSchema(schema: z.ZodMiniType, io: 'input' | 'output'): Tool['inputSchema'] {
  return z.toJSONSchema(schema, { target: 'draft-7', io }) as Tool['inputSchema'];
}

/** The tool as `tools/list` describes it. */
export function toolDefinition(tool: McpTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: jsonSchema(tool.input, 'input'),
    outputSchema: jsonSchema(tool.output, 'output') as Tool['outputSchema'] & object,
    annotations: { title: tool.title, ...tool.annotations },
  };
}
