/**
 * Documents and receipts in PostgreSQL (no local disk state, docs/design/storage.md#scale-out): a {@link BlobStore}
 * over the tables `blobs` and `blob_chunks`. Content is streamed in chunks of {@link CHUNK_BYTES}, both digests are
 * computed while streaming and checked before the blob becomes visible (one database transaction); a read checks the
 * SHA-256 again. An S3-compatible store would implement the same interface.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import { StoreError, type BlobInfo, type BlobStore, type BlobWriteOptions } from './store.js';

/** Bytes per stored chunk: large enough for few rows, small enough that a chunk never strains memory. */
export const CHUNK_BYTES = 256 * 1024;
const BLOB_ID = /^[0-9a-f]{64}$/;

export class PostgresBlobStore implements BlobStore {
  constructor(
    private readonly pool: Pool,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async write(source: AsyncIterable<Uint8Array> | Uint8Array, options: BlobWriteOptions = {}): Promise<BlobInfo> {
    const sha256 = createHash('sha256');
    const sha512 = createHash('sha512');
    let size = 0;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    // Opened with the first full chunk: content of one chunk (most documents, every receipt) is stored by one statement.
    let chunked: { client: PoolClient; uploadKey: string; n: number } | undefined;
    const flush = async (): Promise<void> => {
      if (pendingBytes === 0) return;
      if (chunked === undefined) {
        const client = await this.pool.connect();
        chunked = { client, uploadKey: `upload:${randomUUID()}`, n: 0 };
        try {
          await client.query('BEGIN');
        } catch (error) {
          client.release();
          chunked = undefined;
          throw error;
        }
      }
      await chunked.client.query('INSERT INTO blob_chunks (blob_key, n, bytes) VALUES ($1, $2, $3)', [chunked.uploadKey, chunked.n++, Buffer.concat(pending)]);
      pending = [];
      pendingBytes = 0;
    };
    try {
      const chunks: AsyncIterable<Uint8Array> | Uint8Array[] = source instanceof Uint8Array ? [source] : source;
      for await (const chunk of chunks) {
        size += chunk.byteLength;
        if (options.maxBytes !== undefined && size > options.maxBytes) {
          throw new StoreError('BLOB_TOO_LARGE', `The content is larger than the limit of ${options.maxBytes} bytes.`);
        }
        sha256.update(chunk);
        sha512.update(chunk);
        pending.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        pendingBytes += chunk.byteLength;
        if (pendingBytes > CHUNK_BYTES) await flush();
      }
      const info: BlobInfo = { sha256: sha256.digest('hex'), sha512: sha512.digest('hex'), size };
      if (options.expectSha256 !== undefined && options.expectSha256 !== info.sha256) throw new StoreError('DIGEST_MISMATCH', 'SHA-256 digest mismatch');
      if (options.expectSha512 !== undefined && options.expectSha512 !== info.sha512) throw new StoreError('DIGEST_MISMATCH', 'SHA-512 digest mismatch');
      const blobRow = [info.sha256, info.sha512, info.size, this.clock().getTime()];
      if (chunked === undefined) {
        // One statement, so atomic: the chunk is stored only with a new blob row (an existing blob keeps its chunks).
        await this.pool.query(
          `WITH blob AS (INSERT INTO blobs (sha256, sha512, size, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING RETURNING sha256)
           INSERT INTO blob_chunks (blob_key, n, bytes) SELECT sha256, 0, $5 FROM blob WHERE $3::bigint > 0`,
          [...blobRow, Buffer.concat(pending)],
        );
        return info;
      }
      await flush();
      const { client, uploadKey } = chunked;
      const inserted = await client.query('INSERT INTO blobs (sha256, sha512, size, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING', blobRow);
      if (inserted.rowCount === 1) await client.query('UPDATE blob_chunks SET blob_key = $1 WHERE blob_key = $2', [info.sha256, uploadKey]);
      else await client.query('DELETE FROM blob_chunks WHERE blob_key = $1', [uploadKey]);
      await client.query('COMMIT');
      return info;
    } catch (error) {
      await chunked?.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      chunked?.client.release();
    }
  }

  async read(sha256: string): Promise<Uint8Array> {
    checkId(sha256);
    // One statement, one snapshot: the blob row and its chunks as of the same moment.
    const { rows } = await this.pool.query<{ size: string; bytes: Buffer | null }>(
      'SELECT b.size, c.bytes FROM blobs b LEFT JOIN blob_chunks c ON c.blob_key = b.sha256 WHERE b.sha256 = $1 ORDER BY c.n',
      [sha256],
    );
    if (rows.length === 0) throw new StoreError('BLOB_NOT_FOUND', `Blob ${sha256} does not exist.`, { origin: 'internal' });
    const bytes = Buffer.concat(rows.flatMap((row) => (row.bytes === null ? [] : [row.bytes])));
    if (bytes.length !== Number(rows[0]?.size) || createHash('sha256').update(bytes).digest('hex') !== sha256) {
      throw new StoreError('BLOB_CORRUPT', `Blob ${sha256} does not match its digest: the stored chunks were changed or lost.`, { origin: 'internal' });
    }
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async exists(sha256: string): Promise<boolean> {
    checkId(sha256);
    return (await this.pool.query('SELECT 1 FROM blobs WHERE sha256 = $1', [sha256])).rowCount === 1;
  }

  async delete(sha256: string): Promise<void> {
    checkId(sha256);
    await this.deleteIfUnreferenced(sha256);
  }

  /**
   * Deletes the blob unless a transaction references it (the foreign key of `blob_refs` decides, also against a
   * concurrent commit). Returns whether it was deleted.
   */
  async deleteIfUnreferenced(sha256: string, olderThan?: Date): Promise<boolean> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SAVEPOINT discard');
      try {
        const deleted = await client.query(
          'DELETE FROM blobs WHERE sha256 = $1 AND ($2::bigint IS NULL OR created_at < $2::bigint)',
          [sha256, olderThan?.getTime() ?? null],
        );
        if (deleted.rowCount !== 1) return false;
      } catch (error) {
        if ((error as { code?: string }).code !== '23503') throw error;
        await client.query('ROLLBACK TO SAVEPOINT discard');
        return false;
      }
      await client.query('DELETE FROM blob_chunks WHERE blob_key = $1', [sha256]);
      return true;
    });
  }
}

function checkId(sha256: string): void {
  if (!BLOB_ID.test(sha256)) {
    throw new StoreError('BLOB_INVALID_ID', `${JSON.stringify(sha256)} is not a blob id: expected 64 lowercase hex digits.`);
  }
}

/** Runs `work` in one READ COMMITTED transaction on a pooled connection. */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>, isolation = 'READ COMMITTED'): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query(`BEGIN ISOLATION LEVEL ${isolation}`);
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
