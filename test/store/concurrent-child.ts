/**
 * One of several processes incrementing a counter kept in a transaction's `Reference`, through the store's
 * optimistic concurrency: read, commit with the version read, re-read and retry on a conflict. Prints the number of
 * conflicts it met. Usage: node --import tsx test/store/concurrent-child.ts <dataDir> <transactionId> <increments>
 */
import { ConcurrencyError } from '../../src/store/store.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';

const [dataDir, id, count] = process.argv.slice(2);
if (dataDir === undefined || id === undefined || count === undefined) throw new Error('usage: concurrent-child.ts <dataDir> <id> <n>');
const store = await openSqliteStore({ dataDir });
let conflicts = 0;
for (let i = 0; i < Number(count); i++) {
  for (;;) {
    const tx = await store.getTransaction(id);
    if (tx === undefined) throw new Error(`transaction ${id} is missing`);
    // Yield so that the other process gets a chance to commit between our read and our write.
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 2));
    try {
      await store.commit({
        transaction: { ...tx, Reference: String(Number(tx.Reference) + 1) },
        expectedVersion: tx.version,
        audit: [{ at: new Date(tx.ModifiedDateTime), type: 'transaction.cancelled', actor: 'api', data: {} }],
      });
      break;
    } catch (error) {
      if (!(error instanceof ConcurrencyError)) throw error;
      conflicts++;
    }
  }
}
await store.close();
process.stdout.write(`${conflicts}\n`);
