/**
 * Crash consistency of the embedded store: a child process runs an upload/commit loop and is killed with
 * SIGKILL at random moments; after every kill the store is reopened and must be consistent.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { putFile, referencedBlobs } from '../../src/domain/transaction.js';
import { verifyAuditLog } from '../../src/receipt/audit-log.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { at, makeTransaction } from './transaction-fixtures.js';
import { strayFiles } from './stray-files.js';
import { TSX_LOADER } from '../helpers/tsx.js';

const KILLS = 20;
const CHILD = join(import.meta.dirname, 'crash-child.ts');

interface ChildRun {
  begun: string[];
  committed: Map<string, number>;
}

/** Starts the child, waits for `ready`, kills it with SIGKILL `delayMs` later and returns what it acknowledged. */
function runAndKill(dataDir: string, prefix: string, delayMs: number): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', TSX_LOADER, CHILD, dataDir, prefix], { stdio: ['ignore', 'pipe', 'pipe'] });
    const run: ChildRun = { begun: [], committed: new Map() };
    let buffer = '';
    let stderr = '';
    let killed = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => {
      buffer += text;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) !== -1) {
        const [word, id, version] = buffer.slice(0, newline).split(' ');
        buffer = buffer.slice(newline + 1);
        if (word === 'ready') {
          setTimeout(() => {
            killed = true;
            child.kill('SIGKILL');
          }, delayMs);
        } else if (word === 'begin' && id !== undefined) run.begun.push(id);
        else if (word === 'committed' && id !== undefined) run.committed.set(id, Number(version));
      }
    });
    child.stderr.on('data', (text: Buffer) => (stderr += text.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (killed && signal === 'SIGKILL') resolve(run);
      else reject(new Error(`crash child ended by itself (code ${code}, signal ${signal}): ${stderr}`));
    });
  });
}

// A small deterministic generator, so a failing run can be repeated from the printed seed.
function delays(seed: number, count: number): number[] {
  let state = seed >>> 0;
  return Array.from({ length: count }, () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return 5 + (state % 400);
  });
}

describe('crash consistency', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'paraph-crash-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it(`stays consistent when the writer is killed with SIGKILL at ${KILLS} random points`, async () => {
    const seed = Number(process.env.PARAPH_CRASH_SEED ?? Date.now() % 1_000_000);
    console.log(`crash test seed ${seed} (PARAPH_CRASH_SEED to repeat)`);
    const acknowledged = new Map<string, number>();
    const begun: string[] = [];
    let totalCommits = 0;
    let killedMidBlobWrite = 0;
    for (const [round, delay] of delays(seed, KILLS).entries()) {
      const run = await runAndKill(dataDir, `r${round}`, delay);
      begun.push(...run.begun);
      for (const [id, version] of run.committed) acknowledged.set(id, version);
      totalCommits += run.committed.size;
      const tmp = join(dataDir, 'blobs', 'tmp');
      if (existsSync(tmp) && readdirSync(tmp).length > 0) killedMidBlobWrite++;

      const store = await openSqliteStore({ dataDir });
      try {
        expect(strayFiles(dataDir), `stray files after kill ${round} at ${delay} ms`).toEqual([]);
        for (const id of begun) {
          const tx = await store.getTransaction(id);
          const ack = acknowledged.get(id);
          if (ack !== undefined) {
            expect(tx, `${id} was acknowledged at version ${ack}`).toBeDefined();
            expect(tx?.version).toBeGreaterThanOrEqual(ack);
          }
          if (tx === undefined) continue;
          // One audit entry per commit, chained, for exactly the state that was stored.
          const entries = await store.listAuditEntries(id);
          expect(verifyAuditLog(entries), `audit chain of ${id}`).toMatchObject({ ok: true, count: tx.version });
          for (const sha256 of referencedBlobs(tx)) {
            const bytes = await store.blobs.read(sha256);
            expect(createHash('sha256').update(bytes).digest('hex'), `blob ${sha256} of ${id}`).toBe(sha256);
          }
          if (tx.version === 3) expect(tx.Status).toBe(10);
        }
        // The reopened store still takes writes.
        const blob = await store.blobs.write(new TextEncoder().encode(`after kill ${round}`));
        const probe = putFile(makeTransaction(undefined, { id: `probe-${round}` }), { FileId: 'p', Original: { ...blob, pages: 1 } }, at(0));
        await store.commit({ transaction: probe, expectedVersion: 0 });
      } finally {
        await store.close();
      }
    }
    console.log(
      `crash test: ${KILLS} kills (${killedMidBlobWrite} during a blob write), ${totalCommits} acknowledged commits, ${begun.length} transactions begun`,
    );
    expect(acknowledged.size).toBeGreaterThan(0);

    // Garbage collection after the crashes removes only blobs no committed transaction references.
    const store = await openSqliteStore({ dataDir });
    try {
      const orphans = await store.collectGarbage(new Date(Date.now() + 60_000));
      console.log(`crash test: ${orphans} orphaned blobs collected`);
      for (const id of begun) {
        const tx = await store.getTransaction(id);
        for (const sha256 of tx === undefined ? [] : referencedBlobs(tx)) expect(await store.blobs.exists(sha256)).toBe(true);
      }
    } finally {
      await store.close();
    }
  }, 150_000);
});
