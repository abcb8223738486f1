/**
 * A content-addressed blob store in a directory: `<dir>/ab/abcdef…` named by the SHA-256 of the
 * content. A write streams into `<dir>/tmp/<random>.part` while computing SHA-256 and SHA-512, checks the expected
 * digests and the size limit, fsyncs the file, renames it into place and fsyncs the directory, so a blob that exists
 * under its name is complete and durable. Temporary files live only in `tmp/`, which is emptied on open, so a crash
 * mid-write never leaves anything that could be mistaken for a blob.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobInfo, BlobStore, BlobWriteOptions } from './store.js';
import { StoreError } from './store.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** The directory-backed {@link BlobStore}. */
export class FileBlobStore implements BlobStore {
  private readonly tmpDir: string;

  private constructor(private readonly dir: string) {
    this.tmpDir = join(dir, 'tmp');
  }

  /** Opens (creating) the store in `dir` and deletes temporary files a crashed writer left behind. */
  static async open(dir: string): Promise<FileBlobStore> {
    const store = new FileBlobStore(dir);
    await rm(store.tmpDir, { recursive: true, force: true });
    await mkdir(store.tmpDir, { recursive: true, mode: 0o700 });
    return store;
  }

  /** Path of the blob `sha256` (which must be 64 lowercase hex digits). */
  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) {
      throw new StoreError('BLOB_INVALID_ID', `${JSON.stringify(sha256)} is not a blob id: expected 64 lowercase hex digits.`);
    }
    return join(this.dir, sha256.slice(0, 2), sha256);
  }

  async write(source: AsyncIterable<Uint8Array> | Uint8Array, options: BlobWriteOptions = {}): Promise<BlobInfo> {
    const tmp = join(this.tmpDir, `${randomBytes(12).toString('hex')}.part`);
    const sha256 = createHash('sha256');
    const sha512 = createHash('sha512');
    let size = 0;
    // Documents are readable by the service's user only.
    const handle = await open(tmp, 'wx', 0o600);
    let closed = false;
    try {
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
      for await (const chunk of chunks) {
        size += chunk.byteLength;
        if (options.maxBytes !== undefined && size > options.maxBytes) {
          throw new StoreError('BLOB_TOO_LARGE', `The content is larger than the limit of ${options.maxBytes} bytes.`);
        }
        sha256.update(chunk);
        sha512.update(chunk);
        await handle.write(chunk);
      }
      const info: BlobInfo = { sha256: sha256.digest('hex'), sha512: sha512.digest('hex'), size };
      if (options.expectSha256 !== undefined && options.expectSha256.toLowerCase() !== info.sha256) {
        throw new StoreError('DIGEST_MISMATCH', 'SHA-256 digest mismatch');
      }
      if (options.expectSha512 !== undefined && options.expectSha512.toLowerCase() !== info.sha512) {
        throw new StoreError('DIGEST_MISMATCH', 'SHA-512 digest mismatch');
      }
      await handle.sync();
      await handle.close();
      closed = true;
      const target = this.pathOf(info.sha256);
      if (await exists(target)) {
        // Same content already stored: refresh its time so garbage collection's grace period starts again.
        const now = new Date();
        await utimes(target, now, now);
        await rm(tmp, { force: true });
        return info;
      }
      const shard = join(this.dir, info.sha256.slice(0, 2));
      await mkdir(shard, { recursive: true, mode: 0o700 });
      await rename(tmp, target);
      await fsyncDirectory(shard);
      return info;
    } catch (error) {
      if (!closed) await handle.close().catch(() => undefined);
      await rm(tmp, { force: true });
      throw error;
    }
  }

  async read(sha256: string): Promise<Uint8Array> {
    try {
      return new Uint8Array(await readFile(this.pathOf(sha256)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        throw new StoreError('BLOB_NOT_FOUND', `Blob ${sha256} does not exist.`, { origin: 'internal' });
      }
      throw error;
    }
  }

  async exists(sha256: string): Promise<boolean> {
    return exists(this.pathOf(sha256));
  }

  /** Synchronous existence check, for use inside a database transaction. */
  existsSync(sha256: string): boolean {
    try {
      statSync(this.pathOf(sha256));
      return true;
    } catch {
      return false;
    }
  }

  async delete(sha256: string): Promise<void> {
    await rm(this.pathOf(sha256), { force: true });
  }

  /** Synchronous delete (no error when absent), for use next to a database check. */
  deleteSync(sha256: string): void {
    rmSync(this.pathOf(sha256), { force: true });
  }

  /**
   * Deletes every blob older than `olderThan` for which `isReferenced` answers false. Each check and its delete run
   * synchronously one after the other, so no commit can add a reference in between.
   */
  deleteUnreferencedSync(olderThan: Date, isReferenced: (sha256: string) => boolean): number {
    let deleted = 0;
    for (const shard of readdirSync(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of readdirSync(join(this.dir, shard))) {
        if (!SHA256_HEX.test(name)) continue;
        const path = join(this.dir, shard, name);
        if (statSync(path).mtimeMs >= olderThan.getTime() || isReferenced(name)) continue;
        unlinkSync(path);
        deleted++;
      }
    }
    return deleted;
  }

  /** Every stored blob id (for consistency checks). */
  listSync(): string[] {
    const ids: string[] = [];
    for (const shard of readdirSync(this.dir)) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      for (const name of readdirSync(join(this.dir, shard))) if (SHA256_HEX.test(name)) ids.push(name);
    }
    return ids;
  }

  /** Removes the whole directory (tests). */
  destroySync(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

// The rename is only durable once the directory entry is on disk. Off the event loop: an fsync waits for the disk.
async function fsyncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
