/**
 * `delivery-task-tools/mcp`: an MCP server for agents that read tasks, quote and book deliveries, within a
 * money policy (README "Agents (MCP)"; `docs/mcp.md`). Brings
 * `@modelcontextprotocol/sdk` (a dependency of this package).
 * @module
 */
export {
  DEFAULT_DAILY_CAP_KWD,
  DEFAULT_MAX_FEE_KWD,
  MCP_PERMISSIONS,
  type McpConfirmation,
  type McpPermission,
  type McpPolicy,
  type TopUpLinkDelivery,
} from './mcp/policy.js';
export type { RefusalRule } from './mcp/refusal.js';
export { createMcpServer, MAX_ARGUMENTS_BYTES } from './mcp/server.js';
export { type StdioOptions, serveStdio } from './mcp/stdio.js';
