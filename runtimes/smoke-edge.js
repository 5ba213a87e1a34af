// Entry of the runtime smoke on edge-runtime (bundled by esbuild into one script): exposes runSmoke on
// the VM's global scope for the driver to call.
import { runSmoke } from './smoke.js';

globalThis.runSmoke = runSmoke;
