/**
 * What a test file starts (an app with its queue workers and outbox relay, a service process)
 * is stopped when the file ends, whatever happened to the file's own afterAll: a beforeAll
 * that timed out on a loaded machine leaves its start running, and what it started then would
 * live on into the next file of the same jest worker, on the same database and Redis db, and
 * take that file's jobs (a receipt read from a folder that is not the uploader's: ENOENT).
 * jest/environment.ts keeps the registry on each file's global and runs what is left in it
 * after the file's last hook. Outside jest (bench, scripts) there is no registry: nothing is kept.
 */
const REGISTRY = Symbol.for('pay.testing.fileEnd');

type Stopper = () => Promise<unknown>;

export interface FileEndRegistry {
  stoppers: Set<Stopper>;
}

function registry(): FileEndRegistry | undefined {
  return (globalThis as Record<symbol, FileEndRegistry | undefined>)[REGISTRY];
}

/** Installs the registry on a test file's global (jest/environment.ts). */
export function installFileEndRegistry(global: object): FileEndRegistry {
  const r: FileEndRegistry = { stoppers: new Set() };
  (global as Record<symbol, FileEndRegistry>)[REGISTRY] = r;
  return r;
}

/** Runs `stop` when the file ends, unless the returned function is called first (it was stopped already). */
export function stopWhenFileEnds(stop: Stopper): () => void {
  const r = registry();
  if (!r) return () => undefined;
  r.stoppers.add(stop);
  return () => void r.stoppers.delete(stop);
}

/**
 * An app whose `close` runs once however often it is called, and runs by itself when the file
 * ends. The start itself is what is registered: an app still starting when the file ends (its
 * beforeAll timed out) is closed as soon as it has started.
 */
export function closedWithTheFile<T extends { close(): Promise<void> }>(starting: Promise<T>): Promise<T> {
  let closing: Promise<void> | null = null;
  const closeOnce = (app: T, close: () => Promise<void>) => (closing ??= (unregister(), close.call(app)));
  const unregister = stopWhenFileEnds(async () => {
    const app = await starting.catch(() => null);
    if (app) await app.close();
  });
  return starting.then((app) => {
    const close = app.close;
    app.close = () => closeOnce(app, close);
    return app;
  });
}
