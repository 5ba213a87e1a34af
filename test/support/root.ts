import { fileURLToPath } from 'node:url';

/** The repository root (the `delivery-task-sdk` package). */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
