/**
 * The victim of the crash test: runs an upload/commit sequence in a loop on the store in `argv[2]` until it is
 * killed with SIGKILL. Prints `ready`, then `begin <id>` before a transaction's first write and
 * `committed <id> <version>` after every acknowledged commit, so the parent knows what must have survived.
 *
 * Usage: node --import tsx test/store/crash-child.ts <dataDir> <idPrefix>
 */
import { createHash } from 'node:crypto';
import { putFile, transition, updateFile, type Transaction } from '../../src/domain/transaction.js';
import { openSqliteStore } from '../../src/store/sqlite-store.js';
import { at, makeTransaction } from './transaction-fixtures.js';

const [dataDir, prefix] = process.argv.slice(2);
if (dataDir === undefined || prefix === undefined) throw new Error('usage: crash-child.ts <dataDir> <idPrefix>');

const store = await openSqliteStore({ dataDir });
if ((await store.countAccounts()) === 0) {
  await store.createAccount({
    Id: 'acc-1',
    Name: 'Crash',
    UserTokenHash: 'u'.repeat(64),
    AppKeyHash: 'k'.repeat(64),
    CreatedDateTime: '2026-11-21T10:00:00.000+00:00',
  });
}
process.stdout.write('ready\n');

/** A document whose content differs per transaction and step, streamed in 64 KiB chunks. */
async function* document(seed: string, size: number): AsyncIterable<Uint8Array> {
  let block = createHash('sha512').update(seed).digest();
  for (let written = 0; written < size; written += 65_536) {
    const chunk = new Uint8Array(Math.min(65_536, size - written));
    for (let i = 0; i < chunk.length; i += block.length) {
      chunk.set(block.subarray(0, Math.min(block.length, chunk.length - i)), i);
      block = createHash('sha512').update(block).digest();
    }
    yield chunk;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function acknowledge(tx: Transaction): void {
  process.stdout.write(`committed ${tx.Id} ${tx.version}\n`);
}

for (let n = 0; ; n++) {
  const id = `${prefix}-${n}`;
  process.stdout.write(`begin ${id}\n`);
  let tx = makeTransaction(undefined, { id });
  tx = await store.commit({
    transaction: tx,
    expectedVersion: 0,
    audit: [{ at: at(0), type: 'transaction.created', actor: 'api', data: { language: tx.Language, seal: false, signers: 2, receivers: 1 } }],
  });
  acknowledge(tx);

  const original = await store.blobs.write(document(`${id}/original`, 300_000));
  tx = await store.commit({
    transaction: putFile(tx, { FileId: 'contract.pdf', Original: { ...original, pages: 3 }, UploadedDateTime: tx.CreatedDateTime }, at(1)),
    expectedVersion: tx.version,
    audit: [
      {
        at: at(1),
        type: 'file.uploaded',
        actor: 'api',
        data: { fileId: 'contract.pdf', displayName: 'contract.pdf', sha256: original.sha256, bytes: original.size, pages: 3 },
      },
    ],
  });
  acknowledge(tx);

  const prepared = await store.blobs.write(document(`${id}/prepared`, 320_000));
  const started = transition(
    updateFile(tx, 'contract.pdf', (file) => ({ ...file, Current: { sha256: prepared.sha256, size: prepared.size } }), at(2)),
    { type: 'start' },
    at(2),
  );
  tx = await store.commit({
    transaction: started,
    expectedVersion: tx.version,
    audit: [{ at: at(2), type: 'transaction.started', actor: 'api', data: { files: 1, signers: 2 } }],
    outbox: [
      { kind: 'mail', payload: { to: 'a@example.com', kind: 'invitation' }, dueAt: at(2) },
      { kind: 'postback', payload: { status: 10 }, orderKey: 'https://pb.example.com', dueAt: at(2) },
    ],
  });
  acknowledge(tx);
}
