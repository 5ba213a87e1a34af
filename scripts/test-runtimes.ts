/**
 * The runtime suite (`npm run test:runtimes`, issue 10 §1): the same smoke (runtimes/smoke.js) against
 * the packed tarball on Node 22, Node 24, Bun, Deno, workerd (through miniflare, without nodejs_compat)
 * and edge-runtime.
 *
 * 1. Installs the runtimes from npm into the sub-project `runtimes/` (`npm ci --prefix runtimes`: exact
 *    versions from its package-lock.json; never into the root node_modules).
 * 2. Builds (unless `--skip-build`), packs with `npm pack`, and unpacks the tarball into
 *    `runtimes/node_modules/delivery-task-sdk`, beside its dependencies (ky, zod, msw) pinned there.
 * 3. Bundles the smoke with esbuild: one module worker for workerd, one script for edge-runtime.
 * 4. For each runtime, in turn: a fresh mock served over real HTTP on 127.0.0.1 (`startMockHttpServer`
 *    from the tarball's `delivery-task-sdk/testing`), the runtime started as a child process with the
 *    mock's URL, API key and seller id in its environment, bounded by {@link RUNTIME_TIMEOUT_MS}.
 *
 * Each runtime prints one line, `runtime <name> <version>: ok (<checks>)` or `…: FAILED <why>`; a summary
 * with the time of each step follows. Exits 1 when any runtime fails.
 *
 * Options: `--skip-build` (dist/ is already built, as in CI after `npm run ci`), `--skip-install`
 * (runtimes/node_modules is already installed), `--only <name>` (repeatable).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { type BuildOptions, build, type Metafile } from 'esbuild';

/** Largest time one runtime's smoke may take, startup included, ms. */
const RUNTIME_TIMEOUT_MS = 120_000;
/** Largest time of `npm ci --prefix runtimes`, ms. */
const INSTALL_TIMEOUT_MS = 600_000;
/** Largest output kept from a child process, bytes (on each of stdout and stderr). */
const MAX_OUTPUT_BYTES = 1024 * 1024;

const root = resolve(import.meta.dirname, '..');
const runtimesDir = join(root, 'runtimes');
const modulesDir = join(runtimesDir, 'node_modules');
const bin = (path: string) => join(modulesDir, path);

interface RuntimeRun {
  /** The name printed and passed to the smoke (and `--only`). */
  readonly name: string;
  /** Executable and arguments, run in runtimes/. */
  readonly command: readonly [string, ...string[]];
  /** Extra environment for the smoke. */
  readonly env?: Readonly<Record<string, string>>;
}

interface Outcome {
  readonly name: string;
  readonly ok: boolean;
  readonly line: string;
  readonly ms: number;
}

const { values: flags } = parseArgs({
  options: {
    'skip-build': { type: 'boolean', default: false },
    'skip-install': { type: 'boolean', default: false },
    only: { type: 'string', multiple: true },
  },
});

const execFileAsync = promisify(execFile);
const timings: string[] = [];

/** Runs a setup command quietly, printing its output only when it fails; returns its stdout. */
async function setupStep(
  label: string,
  file: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<string> {
  const started = performance.now();
  try {
    const { stdout } = await execFileAsync(file, args, {
      cwd: root,
      timeout: timeoutMs,
      maxBuffer: MAX_OUTPUT_BYTES,
    });
    timings.push(`${label}: ${seconds(performance.now() - started)}`);
    return stdout;
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    console.error(`${label} failed:\n${stdout}${stderr}`);
    throw new Error(`${label} failed`);
  }
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Runs one runtime's smoke against a fresh mock served on 127.0.0.1. */
async function runRuntime(
  run: RuntimeRun,
  testing: typeof import('../src/testing.js'),
  bundles: Readonly<Record<string, string>>,
): Promise<Outcome> {
  const mock = testing.createMockDeliveryService();
  const server = await testing.startMockHttpServer(mock);
  const started = performance.now();
  try {
    const [file, ...args] = run.command;
    const child = spawn(file, args, {
      cwd: runtimesDir,
      env: {
        ...process.env,
        SMOKE_RUNTIME: run.name,
        SMOKE_BASE_URL: server.url,
        SMOKE_API_KEY: mock.apiKey,
        SMOKE_SELLER_ID: mock.sellerId,
        SMOKE_BUNDLE: bundles[run.name] ?? '',
        ...run.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: RUNTIME_TIMEOUT_MS,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < MAX_OUTPUT_BYTES) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < MAX_OUTPUT_BYTES) stderr += chunk;
    });
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((settle) => {
      child.on('error', (error) => {
        stderr += String(error);
        settle({ code: null, signal: null });
      });
      child.on('close', (code, signal) => settle({ code, signal }));
    });
    const ms = performance.now() - started;
    const line = stdout.split('\n').find((text) => text.startsWith(`runtime ${run.name} `));
    const ok = exit.code === 0 && line !== undefined && /^runtime \S+ \S+: ok\b/.test(line);
    if (ok) return { name: run.name, ok, line, ms };
    const why = exit.signal
      ? `killed by ${exit.signal} (timeout ${RUNTIME_TIMEOUT_MS} ms?)`
      : `exit code ${exit.code}`;
    const detail = [
      line ? stdout : `runtime ${run.name}: FAILED (${why}, no result line)\n${stdout}`,
      stderr.trim().slice(-4000),
    ]
      .filter((text) => text.trim() !== '')
      .join('\n');
    return { name: run.name, ok: false, line: detail, ms };
  } finally {
    mock.close();
    await server.close();
  }
}

const suiteStarted = performance.now();

if (!flags['skip-install']) {
  await setupStep(
    'install runtimes (npm ci --prefix runtimes)',
    'npm',
    ['ci', '--prefix', 'runtimes', '--no-audit', '--no-fund'],
    INSTALL_TIMEOUT_MS,
  );
}
if (!flags['skip-build'])
  await setupStep('build (npm run build)', 'npm', ['run', 'build'], INSTALL_TIMEOUT_MS);

const work = mkdtempSync(join(tmpdir(), 'delivery-runtimes-'));
try {
  const packed = JSON.parse(
    await setupStep('npm pack', 'npm', ['pack', '--json', '--pack-destination', work], INSTALL_TIMEOUT_MS),
  ) as { filename: string }[];
  const tarball = join(work, packed[0]?.filename ?? 'missing.tgz');
  const installed = bin('delivery-task-sdk');
  rmSync(installed, { recursive: true, force: true });
  mkdirSync(installed, { recursive: true });
  await setupStep(
    'unpack the tarball into runtimes/node_modules',
    'tar',
    ['-xzf', tarball, '-C', installed, '--strip-components=1'],
    INSTALL_TIMEOUT_MS,
  );

  const bundleStarted = performance.now();
  const bundles = { workerd: join(work, 'smoke-worker.js'), 'edge-runtime': join(work, 'smoke-edge.js') };
  const common: BuildOptions = {
    bundle: true,
    absWorkingDir: runtimesDir,
    nodePaths: [modulesDir],
    platform: 'browser',
    target: 'es2022',
    logLevel: 'warning',
    metafile: true,
  };
  /** The bundle's SDK code must come from the unpacked tarball, never from the repo's sources. */
  const fromTarball = (result: { metafile?: Metafile | undefined }, name: string) => {
    const inputs = Object.keys(result.metafile?.inputs ?? {});
    const sdk = inputs.filter((input) => input.includes('node_modules/delivery-task-sdk/dist/'));
    const sources = inputs.filter((input) => input.startsWith('../src/') || input.includes('/src/'));
    if (sdk.length === 0 || sources.length > 0) {
      throw new Error(
        `the ${name} bundle does not take the SDK from the tarball: ${sources.join(', ') || 'no dist input'}`,
      );
    }
  };
  const workerBuild = await build({
    ...common,
    entryPoints: ['smoke-worker.js'],
    format: 'esm',
    conditions: ['workerd', 'worker'],
    outfile: bundles.workerd,
  });
  const edgeBuild = await build({
    ...common,
    entryPoints: ['smoke-edge.js'],
    format: 'iife',
    conditions: ['edge-light', 'worker'],
    outfile: bundles['edge-runtime'],
  });
  fromTarball(workerBuild, 'workerd');
  fromTarball(edgeBuild, 'edge-runtime');
  timings.push(`esbuild bundles (workerd, edge-runtime): ${seconds(performance.now() - bundleStarted)}`);

  const deno: [string, ...string[]] = [
    bin('.bin/deno'),
    'run',
    '--no-prompt',
    '--allow-net=127.0.0.1',
    '--allow-env',
    '--allow-read',
  ];
  const allRuns: RuntimeRun[] = [
    { name: 'node22', command: [bin('node22/bin/node'), 'smoke-process.js'] },
    { name: 'node24', command: [bin('node24/bin/node'), 'smoke-process.js'] },
    { name: 'bun', command: [bin('.bin/bun'), 'smoke-process.js'], env: { SMOKE_LISTEN_ERROR: 'Bun' } },
    { name: 'deno', command: [...deno, 'smoke-process.js'], env: { SMOKE_LISTEN_ERROR: 'Deno' } },
    { name: 'workerd', command: [process.execPath, 'host-workerd.js'] },
    { name: 'edge-runtime', command: [process.execPath, 'host-edge.js'] },
  ];
  const runs = allRuns.filter((run) => !flags.only || flags.only.includes(run.name));
  if (runs.length === 0) throw new Error(`--only matched no runtime`);

  const testing = (await import(
    pathToFileURL(join(installed, 'dist/testing.js')).href
  )) as typeof import('../src/testing.js');
  const outcomes: Outcome[] = [];
  for (const run of runs) {
    const outcome = await runRuntime(run, testing, bundles);
    console.log(outcome.line);
    outcomes.push(outcome);
  }

  const failed = outcomes.filter((outcome) => !outcome.ok);
  console.log('\nRuntime suite:');
  for (const line of timings) console.log(`  ${line}`);
  for (const outcome of outcomes) {
    console.log(`  ${outcome.name}: ${outcome.ok ? 'ok' : 'FAILED'} in ${seconds(outcome.ms)}`);
  }
  console.log(
    `runtimes: ${outcomes.length - failed.length} passed, ${failed.length} failed` +
      `${failed.length ? ` (${failed.map((outcome) => outcome.name).join(', ')})` : ''}` +
      `, ${seconds(performance.now() - suiteStarted)} in all`,
  );
  process.exitCode = failed.length ? 1 : 0;
} finally {
  rmSync(work, { recursive: true, force: true });
}
