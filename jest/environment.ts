import NodeEnvironment from 'jest-environment-node';
import { installFileEndRegistry, type FileEndRegistry } from '../packages/testing/src/file-end';

/** How long what a file left running may take to stop (a background closing waits for a KYC check in flight). */
const STOP_MS = 180_000;

/**
 * Node, plus: what a test file started and did not stop (packages/testing/src/file-end.ts) is
 * stopped after its last hook, before the next file of this worker starts on the same
 * database and Redis db.
 */
export default class PayTestEnvironment extends NodeEnvironment {
  private fileEnd: FileEndRegistry | undefined;

  override async setup(): Promise<void> {
    await super.setup();
    this.fileEnd = installFileEndRegistry(this.global);
  }

  override async teardown(): Promise<void> {
    const left = [...(this.fileEnd?.stoppers ?? [])];
    this.fileEnd?.stoppers.clear();
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<void>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`what the file left running did not stop within ${STOP_MS} ms`)), STOP_MS);
    });
    try {
      await Promise.race([Promise.allSettled(left.map((stop) => stop())), bound]);
    } finally {
      clearTimeout(timer);
      await super.teardown();
    }
  }
}
