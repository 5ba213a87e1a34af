/** Receivers sharing one `memoryStore()`: the shared-receivers suite (a Redis store runs the same one). */
import { memoryStore } from '../../src/index.js';
import { describeSharedReceivers } from './shared-receivers.js';

describeSharedReceivers('one memoryStore()', () => memoryStore());
