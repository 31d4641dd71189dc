import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaContainer, SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm';
import type { EngineAdapters } from './adapters';

export const NO_FILTERS: SchemaFilter = { externalTables: [], externalEnums: [] };

interface Glue {
  SchemaEngine: typeof SchemaEngine;
  __wbg_set_wasm(exports: unknown): void;
}

// lib is ES2023 without DOM, so the WebAssembly global has no typings here.
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, unknown>) => { exports: Record<string, unknown> };
}

let glue: Glue | undefined;

/**
 * The engine's panic hook hands its message to this global before it aborts; without the
 * registry the hook itself throws a TypeError and the reason is lost.
 */
let lastPanic: string | null = null;

/** The message of the engine's last panic in this process, if any. */
export function lastEnginePanic(): string | null {
  return lastPanic;
}
const panicHost = globalThis as unknown as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
panicHost.PRISMA_WASM_PANIC_REGISTRY ??= {
  set_message: (message: string) => {
    lastPanic = message;
  },
};

/**
 * The engine arms setTimeout for its internal timeouts (e.g. 10 s on the migration advisory
 * lock) and never clears them, which kept every deploying process (and Jest) alive ~10 s
 * after the work was done. Timers stay referenced while any engine call runs, in case the
 * engine really waits on one, and are unref'd once the last call is over.
 */
const engineTimers = new Set<NodeJS.Timeout>();
let activeSessions = 0;

function engineSetTimeout(fn: () => void, ms: number): NodeJS.Timeout {
  const timer = setTimeout(() => {
    engineTimers.delete(timer);
    fn();
  }, ms);
  if (activeSessions === 0) timer.unref();
  else engineTimers.add(timer);
  return timer;
}

function sessionStarted(): void {
  activeSessions++;
}

function sessionEnded(): void {
  activeSessions--;
  if (activeSessions > 0) return;
  for (const timer of engineTimers) timer.unref();
  engineTimers.clear();
}

/**
 * Loads the engine once per process (or per Jest module registry).
 *
 * The package is wasm-bindgen's "bundler" build: ESM that `import`s the .wasm file, which
 * neither Node 20 nor Jest's CommonJS sandbox can load. So its glue file is evaluated as a
 * function body in the caller's realm and the module instantiated by hand. Same realm
 * matters: the glue checks `instanceof Promise` / `Uint8Array` on values the adapter (loaded
 * in that realm too) hands back.
 */
function loadGlue(): Glue {
  if (glue) return glue;
  const dir = path.dirname(require.resolve('@prisma/schema-engine-wasm'));
  const names: string[] = [];
  const body = readFileSync(path.join(dir, 'schema_engine_bg.js'), 'utf8').replace(
    /^export (function|class|const|let) ([A-Za-z0-9_$]+)/gm,
    (_m, kind: string, name: string) => {
      names.push(name);
      return `${kind} ${name}`;
    },
  );
  if (/^\s*(import|export)\b/m.test(body)) {
    throw new Error('schema_engine_bg.js has an import/export this loader does not handle; was the package upgraded?');
  }
  const exportsOf = new Function('setTimeout', `${body}\nreturn { ${names.join(', ')} };`) as (
    setTimeoutImpl: typeof engineSetTimeout,
  ) => Record<string, unknown>;
  const bindings = exportsOf(engineSetTimeout);
  const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
  const module = new wasm.Module(readFileSync(path.join(dir, 'schema_engine_bg.wasm')));
  const instance = new wasm.Instance(module, { './schema_engine_bg.js': bindings });
  const loaded = bindings as unknown as Glue;
  loaded.__wbg_set_wasm(instance.exports);
  (instance.exports.__wbindgen_start as () => void)();
  glue = loaded;
  return loaded;
}

/** An engine failure, with the engine's log kept for whoever prints it. */
export class EngineError extends Error {
  constructor(
    message: string,
    readonly engineLog: string[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'EngineError';
  }
}

/** One line per engine log record: "LEVEL message key=value...". */
function formatLogLine(raw: string): string {
  try {
    const rec = JSON.parse(raw) as { level?: string; fields?: Record<string, unknown> };
    const { message, ...rest } = rec.fields ?? {};
    const extra = Object.entries(rest).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`);
    return [rec.level ?? 'LOG', String(message ?? ''), ...extra].join(' ').trim();
  } catch {
    return raw.trim();
  }
}

function errorMessage(err: unknown): string {
  if (err instanceof Error) {
    // The first line is Prisma's message; the rest is a Rust span trace nobody acts on.
    const code = (err as { code?: unknown }).code;
    const msg = err.message.split('\n   0: ')[0]?.trim() ?? err.message;
    return typeof code === 'string' ? `${code}: ${msg}` : msg;
  }
  return String(err);
}

/**
 * Runs fn with a fresh engine over the given adapters and always cleans up in the order that
 * works: free the engine, then close pools, then drop shadow databases.
 */
export async function withEngine<T>(
  what: string,
  schemaFiles: SchemaContainer[],
  adapters: EngineAdapters,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const log: string[] = [];
  let engine: SchemaEngine | undefined;
  let result: T;
  sessionStarted();
  lastPanic = null;
  try {
    engine = await loadGlue().SchemaEngine.new(
      { datamodels: schemaFiles.map((f): [string, string] => [f.path, f.content]) },
      (line: string) => log.push(formatLogLine(line)),
      bindMigrationAwareSqlAdapterFactory(adapters),
    );
    result = await fn(engine);
  } catch (err) {
    engine?.free();
    engine = undefined;
    await adapters.close().catch(() => undefined);
    const reason = lastPanic ? `the engine panicked: ${lastPanic}` : errorMessage(err);
    throw new EngineError(`${what}: ${reason}`, log, { cause: err });
  } finally {
    engine?.free();
    sessionEnded();
  }
  await adapters.close();
  return result;
}
