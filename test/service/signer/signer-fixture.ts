/**
 * Test fixture of the signer journey: the real service on 127.0.0.1 with a log sink (the default SMS
 * sender writes codes to the log), and a transaction with two documents — `contract` with a Signature, a Check and
 * a SingleLine field per signer, and `annex` without metadata (default signature fields) — started and waiting.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { call, captureLog, makePdf, startTestService, type TestService } from '../../helpers/service-harness.js';

/** A running service plus every log line it wrote. */
export interface SignerService {
  readonly service: TestService;
  readonly lines: Record<string, unknown>[];
  /** The last SMS code written to the log for `signerId`. */
  smsCode(signerId: string): string | undefined;
}

/** Starts the service with a log sink. */
export async function startSignerService(options: { worker?: boolean } = {}): Promise<SignerService> {
  const log = captureLog();
  const service = await startTestService({ logger: log.logger, worker: options.worker ?? false });
  return { service, lines: log.lines, smsCode: log.smsCode };
}

/** Options of {@link createSigningTransaction}. */
export interface SigningTransactionOptions {
  readonly signers?: readonly Record<string, unknown>[];
  readonly seal?: boolean;
  readonly language?: string;
  readonly setParaph?: boolean;
  /** The contract's check boxes come ticked (`Value: true`) instead of with the export value `Yes`. */
  readonly preChecked?: boolean;
  /** The contract's text fields carry a Label and a Tooltip in Dutch, German and English. */
  readonly fieldTexts?: boolean;
  /** More properties of the create request. */
  readonly transaction?: Record<string, unknown>;
  /** More fields of each signer's formset of the contract (keyed like FileMetaData's fields). */
  readonly moreFields?: Record<string, unknown>;
}

/** A started transaction: its id and each signer's token and SignUrl. */
export interface SigningTransaction {
  readonly id: string;
  readonly signers: readonly { id: string; token: string; signUrl: string }[];
}

/** The invitation text the fixture gives a signer that is invited (the default) and brings no message of its own. */
const FIXTURE_SIGN_REQUEST_MESSAGE = 'Please sign the service contract.';

/** An invited signer needs a SignRequestMessage; one sent with SendSignRequest false or its own message is kept as is. */
function withInvitationMessage(signer: Record<string, unknown>): Record<string, unknown> {
  if (signer.SendSignRequest === false || signer.SignRequestMessage !== undefined) return signer;
  return { ...signer, SignRequestMessage: FIXTURE_SIGN_REQUEST_MESSAGE };
}

/** Creates, uploads (two documents) and starts a transaction. */
export async function createSigningTransaction(base: string, options: SigningTransactionOptions = {}): Promise<SigningTransaction> {
  const signers = (
    options.signers ?? [
      { Email: 'alice@example.com', ScribbleName: 'Alice Janssen', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }], ReturnUrl: 'https://example.com/done' },
      { Email: 'bob@example.com', Verifications: [{ Type: 'Consent' }, { Type: 'Scribble' }] },
    ]
  ).map(withInvitationMessage);
  const created = await call(base, 'POST', '/api/transaction', {
    json: { Seal: options.seal ?? true, Reference: 'REF-42', ...(options.language ? { Language: options.language } : {}), ...options.transaction, Signers: signers },
  });
  if (created.status !== 200) throw new Error(`create: ${created.status} ${created.text}`);
  const id = created.json.Id as string;
  const ids = (created.json.Signers as { Id: string }[]).map((s) => s.Id);
  const formSets: Record<string, Record<string, unknown>> = {};
  const signerSets: Record<string, { FormSets: string[] }> = {};
  ids.forEach((signerId, i) => {
    const top = 200 + i * 200;
    formSets[`f${i + 1}`] = {
      sig: { Type: 'Signature', Location: { PageNumber: 1, Left: 300, Top: top, Width: 200, Height: 80 } },
      // Rows 60 pt apart: at "fit width" on a 320 px screen (scale ~0.46) each field stays a 24 px target of its own.
      agree: { Type: 'Check', Value: options.preChecked ? true : 'Yes', Location: { PageNumber: 1, Left: 72, Top: top } },
      city: {
        Type: 'SingleLine',
        Location: { PageNumber: 1, Left: 72, Top: top + 60, Width: 150, Height: 20 },
        ...(options.fieldTexts
          ? { Label: { nl: 'Plaats', de: 'Ort', en: 'City' }, Tooltip: { 'nl-NL': 'Waar u tekent', 'de-DE': 'Wo Sie unterschreiben', 'en-US': 'Where you sign' } }
          : {}),
      },
      ...options.moreFields,
    };
    signerSets[signerId] = { FormSets: [`f${i + 1}`] };
  });
  const metadata = { DisplayName: 'Service contract', ...(options.setParaph ? { SetParaph: true } : {}), Signers: signerSets, FormSets: formSets };
  const contract = await makePdf([['Service contract between the parties', 'Article 1. Scope'], ['Article 2. Signatures']]);
  const annex = await makePdf([['Annex A: price list']]);
  const put = async (fileId: string, options: Parameters<typeof call>[3]) => {
    const response = await call(base, 'PUT', `/api/transaction/${id}/file/${fileId}`, options);
    if (response.status >= 300) throw new Error(`PUT ${fileId}: ${response.status} ${response.text}`);
  };
  await put('contract', { json: metadata });
  await put('contract', { body: contract, headers: { 'content-type': 'application/pdf' } });
  await put('annex', { body: annex, headers: { 'content-type': 'application/pdf' } });
  const start = await call(base, 'PUT', `/api/transaction/${id}/start`);
  if (start.status !== 204) throw new Error(`start: ${start.status} ${start.text}`);
  const got = await call(base, 'GET', `/api/transaction/${id}`);
  return {
    id,
    signers: (got.json.Signers as { Id: string; SignUrl: string }[]).map((s) => ({ id: s.Id, signUrl: s.SignUrl, token: s.SignUrl.split('/sign/')[1] as string })),
  };
}

/** A small valid PNG (a dark diagonal stroke on transparent), as a data URL. */
export const SCRIBBLE_DATA_URL =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAHUlEQVR4nGPgEon6D8IM5AKYAaOGjBoyashQNwQAosVDY2Ec5d0AAAAASUVORK5CYII=';

const run = promisify(execFile);

/**
 * Pixels of signature ink (dark blue) in a region (points, top-left origin) of page `pageNumber`, rendered by
 * pdftoppm at 72 dpi; with `pngPrefix` the whole page is also written as a PNG there.
 */
export async function inkPixels(pdf: Uint8Array, pageNumber: number, region: { x: number; y: number; w: number; h: number }, pngPrefix?: string): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'paraph-render-'));
  try {
    const file = join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    const page = String(pageNumber);
    await run('pdftoppm', ['-r', '72', '-f', page, '-l', page, '-x', String(region.x), '-y', String(region.y), '-W', String(region.w), '-H', String(region.h), file, join(dir, 'out')]);
    if (pngPrefix !== undefined) await run('pdftoppm', ['-r', '72', '-f', page, '-l', page, '-png', file, pngPrefix]);
    const ppm = await readFile(join(dir, (await readdir(dir)).find((n) => n.endsWith('.ppm')) as string));
    // P6 header: "P6\n<w> <h>\n255\n"
    let offset = 0;
    let fields = 0;
    while (fields < 4) {
      while (ppm[offset] === 0x20 || ppm[offset] === 0x0a) offset++;
      while (ppm[offset] !== 0x20 && ppm[offset] !== 0x0a) offset++;
      fields++;
    }
    offset++;
    let ink = 0;
    for (let i = offset; i + 2 < ppm.length; i += 3) {
      const [r, g, b] = [ppm[i]!, ppm[i + 1]!, ppm[i + 2]!];
      if (r < 70 && g < 90 && b > 60 && b - r > 35) ink++;
    }
    return ink;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
