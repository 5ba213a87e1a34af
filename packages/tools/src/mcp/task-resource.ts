/** Task status as an MCP resource, `task://{id}` (README "Agents (MCP)"). */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { Task } from 'delivery-task-sdk';
import { NotFoundError } from 'delivery-task-sdk';
import type { Session } from './session.js';

/** The URI template of a task. */
export const TASK_URI_TEMPLATE = 'task://{id}';

/** Subscriptions one session may hold. */
export const MAX_SUBSCRIPTIONS = 20;

/** JSON-RPC error code of an unknown resource (MCP specification, "Resources" → "Error Handling"). */
const RESOURCE_NOT_FOUND = -32002;
const INVALID_PARAMS = -32602;

/** The task id of `task://<id>` (percent-decoded), or `undefined`. */
export function taskIdOf(uri: string): string | undefined {
  if (!uri.startsWith('task://')) return undefined;
  try {
    const id = decodeURIComponent(uri.slice('task://'.length));
    return id === '' || id.length > 200 ? undefined : id;
  } catch {
    return undefined;
  }
}

/** What a subscription compares: the status and the update time. */
function stateOf(task: Task): string {
  return `${task.status ?? ''}\n${task.updatedAt ?? ''}`;
}

/** Serves `task://{id}` on `server` for `session`; returns the function that stops every subscription. */
export function serveTaskResources(server: Server, session: Session): () => void {
  const subscriptions = new Map<string, ReturnType<typeof setInterval>>();
  const stopAll = () => {
    for (const timer of subscriptions.values()) clearInterval(timer);
    subscriptions.clear();
  };
  const allowed = () => {
    if (!session.policy.allow.has('read')) {
      throw new McpError(INVALID_PARAMS, "task resources need the policy's 'read' permission");
    }
  };
  const idOf = (uri: string): string => {
    const id = taskIdOf(uri);
    if (id === undefined) throw new McpError(INVALID_PARAMS, 'expected a resource URI task://<task id>');
    return id;
  };

  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: session.policy.allow.has('read')
      ? [
          {
            uriTemplate: TASK_URI_TEMPLATE,
            name: 'task',
            title: 'Delivery task',
            description:
              'A delivery task and its status (JSON, as get_task gives it); subscribe for status changes',
            mimeType: 'application/json',
          },
        ]
      : [],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request, extra) => {
    allowed();
    const { uri } = request.params;
    const id = idOf(uri);
    let task: Task;
    try {
      task = await session.client.tasks.retrieve(id, { signal: extra.signal });
    } catch (error) {
      if (error instanceof NotFoundError)
        throw new McpError(RESOURCE_NOT_FOUND, 'Resource not found: no such task', { uri });
      throw new McpError(
        -32603,
        `the task could not be read: ${error instanceof Error ? error.name : 'error'}`,
      );
    }
    const text = JSON.stringify(session.redact({ task: session.view(task) }));
    return { contents: [{ uri, mimeType: 'application/json', text }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    allowed();
    const { uri } = request.params;
    const id = idOf(uri);
    if (subscriptions.has(uri)) return {};
    if (subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw new McpError(INVALID_PARAMS, `at most ${MAX_SUBSCRIPTIONS} task subscriptions per session`);
    }
    let last: string | undefined;
    let reading = false;
    const poll = async () => {
      if (reading) return;
      reading = true;
      try {
        const state = stateOf(await session.client.tasks.retrieve(id));
        if (last !== undefined && state !== last) await server.sendResourceUpdated({ uri });
        last = state;
      } catch {
        // A failed read is tried again at the next interval; a closed connection stops everything.
        if (server.transport === undefined) stopAll();
      } finally {
        reading = false;
      }
    };
    const timer = setInterval(() => void poll(), session.policy.subscriptionPollMs);
    (timer as { unref?: () => void }).unref?.();
    subscriptions.set(uri, timer);
    void poll();
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    const timer = subscriptions.get(request.params.uri);
    if (timer !== undefined) clearInterval(timer);
    subscriptions.delete(request.params.uri);
    return {};
  });
  return stopAll;
}
