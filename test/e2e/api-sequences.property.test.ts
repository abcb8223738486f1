/**
 * Model-based property test: random sequences of API calls (create, upload PDF or metadata, replace,
 * start, delete, get, downloads) over real HTTP never produce a 5xx, never make a transition outside the state machine
 * (docs/design/transactions.md#transitions), answer with the status code the model predicts, and GET always reflects
 * the last accepted change.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, makePdf, startTestService, type ApiResponse, type TestService } from '../helpers/service-harness.js';

let service: TestService;
let pdfA: Uint8Array;
let pdfB: Uint8Array;

beforeAll(async () => {
  // DELETE cleans at once in this model (the grace period is test/clients/delete-grace.test.ts's).
  service = await startTestService({ env: { PARAPH_DELETE_GRACE_MINUTES: '0' } });
  pdfA = await makePdf([['Document A']]);
  pdfB = await makePdf([['Document B'], ['page 2']]);
}, 60_000);

afterAll(async () => {
  await service?.dispose();
});

/** The transitions (docs/design/transactions.md#transitions) (the service's own 20 is passed through synchronously). */
const ALLOWED = new Set(['5>10', '5>30', '5>70', '5>60', '10>60', '20>60']);

interface ModelFile {
  pdf: boolean;
  meta: boolean;
}
interface ModelTx {
  id: string;
  sealOnly: boolean;
  status: number;
  cleaned: boolean;
  files: Map<string, ModelFile>;
}
interface Model {
  txs: ModelTx[];
}
interface Real {
  /** Every status seen per transaction, in order. */
  seen: Map<string, number[]>;
}

/** How many commands ran and how many starts succeeded (the test asserts the runs did real work). */
const stats = { commands: 0, started: 0, sealed: 0, deleted: 0 };

const FILE_IDS = ['a.pdf', 'b c.pdf', 'ü', '__proto__'] as const;

function expectNo5xx(r: ApiResponse, what: string): void {
  expect(r.status, `${what}: ${r.text}`).toBeLessThan(500);
}

async function checkGet(model: ModelTx, real: Real): Promise<void> {
  stats.commands++;
  const r = await call(service.url, 'GET', `/api/transaction/${model.id}`);
  expectNo5xx(r, 'GET');
  if (model.cleaned) {
    expect(r.status).toBe(410);
  } else {
    expect(r.status).toBe(200);
    const withPdf = [...model.files].filter(([, f]) => f.pdf).map(([k]) => k);
    expect(Object.keys(r.json.Files ?? {})).toEqual(withPdf);
  }
  expect(r.json.Status).toBe(model.status);
  const seen = real.seen.get(model.id) ?? [];
  const last = seen[seen.length - 1];
  if (last !== undefined && last !== r.json.Status) expect(ALLOWED.has(`${last}>${r.json.Status}`), `${last} → ${r.json.Status}`).toBe(true);
  seen.push(r.json.Status as number);
  real.seen.set(model.id, seen);
}

class CreateCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly sealOnly: boolean) {}
  check = () => true;
  async run(m: Model, r: Real): Promise<void> {
    const body = this.sealOnly ? { Seal: true } : { Seal: true, Signers: [{ SendSignRequest: false, Email: 'x@example.com' }] };
    const res = await call(service.url, 'POST', '/api/transaction', { json: body });
    expectNo5xx(res, 'create');
    expect(res.status).toBe(200);
    const tx: ModelTx = { id: res.json.Id, sealOnly: this.sealOnly, status: 5, cleaned: false, files: new Map() };
    m.txs.push(tx);
    await checkGet(tx, r);
  }
  toString = () => `create(${this.sealOnly ? 'seal-only' : 'signer'})`;
}

class UploadCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly tx: number,
    readonly fileId: string,
    readonly kind: 'pdf' | 'meta' | 'garbage',
  ) {}
  check = (m: Readonly<Model>) => m.txs.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const tx = m.txs[this.tx % m.txs.length] as ModelTx;
    const path = `/api/transaction/${tx.id}/file/${encodeURIComponent(this.fileId)}`;
    service.clock.advance(1);
    const res =
      this.kind === 'meta'
        ? await call(service.url, 'PUT', path, { json: { DisplayName: `Name of ${this.fileId}` } })
        : await call(service.url, 'PUT', path, {
            body: this.kind === 'pdf' ? (this.fileId === 'a.pdf' ? pdfA : pdfB) : new TextEncoder().encode('garbage'),
            headers: { 'content-type': 'application/pdf' },
          });
    expectNo5xx(res, `upload ${this.kind}`);
    const file = tx.files.get(this.fileId);
    if (tx.cleaned) expect(res.status).toBe(410);
    else if (tx.status !== 5) expect(res.json.Message).toBe('The transaction has already been started.');
    else if (this.kind === 'garbage') expect(res.status).toBe(400);
    else if (this.kind === 'pdf') {
      expect(res.status).toBe(file?.pdf ? 204 : 201);
      tx.files.set(this.fileId, { pdf: true, meta: file?.meta ?? false });
    } else {
      expect(res.status).toBe(file?.pdf ? 204 : 202);
      tx.files.set(this.fileId, { pdf: file?.pdf ?? false, meta: true });
    }
    await checkGet(tx, r);
  }
  toString = () => `upload(${this.tx}, ${this.fileId}, ${this.kind})`;
}

class StartCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly tx: number) {}
  check = (m: Readonly<Model>) => m.txs.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const tx = m.txs[this.tx % m.txs.length] as ModelTx;
    service.clock.advance(1);
    const res = await call(service.url, 'PUT', `/api/transaction/${tx.id}/start`);
    expectNo5xx(res, 'start');
    const ready = tx.files.size > 0 && [...tx.files.values()].every((f) => f.pdf);
    if (tx.cleaned) expect(res.status).toBe(410);
    else if (tx.status !== 5 || !ready) expect(res.status).toBe(400);
    else {
      expect(res.status).toBe(204);
      tx.status = tx.sealOnly ? 30 : 10;
      stats.started++;
      if (tx.sealOnly) stats.sealed++;
    }
    await checkGet(tx, r);
    if (!tx.cleaned) {
      const receipt = await call(service.url, 'GET', `/api/file/receipt/${tx.id}`);
      expectNo5xx(receipt, 'receipt');
      expect(receipt.status).toBe(tx.status === 30 ? 200 : 404);
    }
  }
  toString = () => `start(${this.tx})`;
}

class DeleteCommand implements fc.AsyncCommand<Model, Real> {
  constructor(readonly tx: number) {}
  check = (m: Readonly<Model>) => m.txs.length > 0;
  async run(m: Model, r: Real): Promise<void> {
    const tx = m.txs[this.tx % m.txs.length] as ModelTx;
    service.clock.advance(1);
    const res = await call(service.url, 'DELETE', `/api/transaction/${tx.id}`, { json: { Reason: 'property test' } });
    expectNo5xx(res, 'delete');
    if (tx.cleaned) expect(res.status).toBe(410);
    else {
      expect(res.status).toBe(200);
      if (tx.status < 30) tx.status = 60;
      stats.deleted++;
      tx.cleaned = true;
      expect(res.json.Status).toBe(tx.status);
    }
    await checkGet(tx, r);
  }
  toString = () => `delete(${this.tx})`;
}

class DownloadCommand implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly tx: number,
    readonly fileId: string,
  ) {}
  check = (m: Readonly<Model>) => m.txs.length > 0;
  async run(m: Model): Promise<void> {
    const tx = m.txs[this.tx % m.txs.length] as ModelTx;
    const res = await call(service.url, 'GET', `/api/transaction/${tx.id}/file/${encodeURIComponent(this.fileId)}`);
    expectNo5xx(res, 'download');
    if (tx.cleaned) expect(res.status).toBe(410);
    else expect(res.status).toBe(tx.files.get(this.fileId)?.pdf ? 200 : 404);
  }
  toString = () => `download(${this.tx}, ${this.fileId})`;
}

describe('random API call sequences', () => {
  it('never answer 5xx, follow the state machine, and GET reflects the last accepted change', async () => {
    const txIndex = fc.nat({ max: 1 });
    const fileId = fc.constantFrom(FILE_IDS[0], FILE_IDS[0], ...FILE_IDS);
    const commands = [
      fc.boolean().map((sealOnly) => new CreateCommand(sealOnly)),
      fc.tuple(txIndex, fileId, fc.constantFrom('pdf' as const, 'pdf' as const, 'meta' as const, 'garbage' as const)).map(([t, f, k]) => new UploadCommand(t, f, k)),
      fc.tuple(txIndex, fileId).map(([t, f]) => new UploadCommand(t, f, 'pdf')),
      txIndex.map((t) => new StartCommand(t)),
      txIndex.map((t) => new StartCommand(t)),
      txIndex.map((t) => new DeleteCommand(t)),
      fc.tuple(txIndex, fileId).map(([t, f]) => new DownloadCommand(t, f)),
    ];
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25, size: 'medium' }), async (cmds) => {
        await fc.asyncModelRun(async () => {
          const model: Model = { txs: [] };
          const real: Real = { seen: new Map() };
          // Every run starts with one transaction of each kind, so that short sequences still reach start.
          await new CreateCommand(true).run(model, real);
          await new CreateCommand(false).run(model, real);
          return { model, real };
        }, cmds);
      }),
      { numRuns: 25, seed: 20261121 },
    );
    console.log('api sequences', stats);
    expect(stats.started).toBeGreaterThan(3);
    expect(stats.sealed).toBeGreaterThan(1);
    expect(stats.deleted).toBeGreaterThan(3);
  }, 240_000);
});
