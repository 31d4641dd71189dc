import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { randomUUID } from 'node:crypto';

/**
 * Where receipt files live. Keys are made by the service (`<merchant>/<receipt id>`), never
 * from anything the client sent, and files are only ever read back as bytes: nothing stored
 * is executed or served inline.
 */
export interface ReceiptStorage {
  readonly name: string;
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  /** Removes the file; a key with no file is not an error (S3's DeleteObject answers the same). */
  delete(key: string): Promise<void>;
}

/** Service-made keys only: letters, digits, dashes and single slashes, no `..`. */
const KEY = /^[0-9a-f-]+(\/[0-9a-f-]+)*$/;

export function assertStorageKey(key: string): void {
  if (!KEY.test(key)) throw new Error(`invalid storage key ${JSON.stringify(key)}`);
}

/** Files under one directory (RECEIPTS_DIR). A write lands whole or not at all (temp file, then rename). */
export class LocalDiskStorage implements ReceiptStorage {
  readonly name = 'local';
  private readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(key: string): string {
    assertStorageKey(key);
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key ${key} leaves the storage directory`);
    return path;
  }

  // The type is kept in the receipt row; a file on disk needs none.
  async put(key: string, bytes: Buffer, _contentType?: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${randomUUID()}.tmp`;
    // 0600 and no execute bit: the file is data, whatever its bytes are.
    await writeFile(tmp, bytes, { mode: 0o600 });
    await rename(tmp, path);
  }

  async get(key: string): Promise<Buffer> {
    return readFile(this.pathOf(key));
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }
}
