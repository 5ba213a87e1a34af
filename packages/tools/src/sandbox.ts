/**
 * `delivery-task-tools/sandbox`: the stateful mock of `delivery-task-sdk/testing` served over HTTP with
 * `/_sandbox/` control endpoints and a dashboard, as `delivery-task sandbox` runs it (docs/sandbox.md).
 *
 * ```ts
 * import { startSandbox } from 'delivery-task-tools/sandbox';
 * const sandbox = await startSandbox({ port: 0 });
 * ```
 * @module
 */
export { SANDBOX_DEFAULT_PORT, type Sandbox, type SandboxOptions, startSandbox } from './sandbox/sandbox.js';
export { parseSandboxSeed, type SandboxSeed } from './sandbox/seed.js';
