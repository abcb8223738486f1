/**
 * The files of the consumer project test/package/consumer.test.ts installs paraph into: a TypeScript program that
 * uses only the published entry points and types (strict, `nodenext`, no DOM lib, `skipLibCheck: false`), and a
 * CommonJS file that `require`s paraph. Kept as text so the repository's own type-check does not resolve 'paraph'.
 */

/** tsconfig.json of the consumer: what a strict Node-only project uses. */
export const CONSUMER_TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    lib: ['ES2023'],
    types: ['node'],
    strict: true,
    skipLibCheck: false,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    outDir: 'out',
  },
  files: ['consumer.ts'],
};

/**
 * Placement, signing with a software key, verification and a sealed receipt; then the features whose native addon
 * or optional peer is missing, and a damaged PDF (nothing of pdf-lib's may reach stderr). Prints one JSON line.
 */
export const CONSUMER_TS = `import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import {
  appendAuditEntry,
  buildReceipt,
  listSignatureFields,
  NativeModuleError,
  openPkcs11Signer,
  ParaphError,
  parseFileMetaData,
  placeFieldsFromMetadata,
  sealPdf,
  signPdf,
  ValidationError,
  verifyPdf,
  verifyPostback,
  verifyReceipt,
  type FileMetaData,
  type ReceiptTransaction,
  type VerificationReport,
} from 'paraph';
import { placeFieldsFromMetadata as placeFromPdfEntry } from 'paraph/pdf';
import { ParaphError as PadesParaphError, signPdf as signFromPadesEntry } from 'paraph/pades';
import { verifyReceipt as verifyFromReceiptEntry } from 'paraph/receipt';
import { createService, loadConfig, type ParaphService } from 'paraph/server';
import { generatePdf, startSmtpSink, testPki } from 'paraph/testing';

const now = new Date('2026-11-21T10:00:00Z');
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const failure = async (work: () => Promise<unknown>): Promise<string> => {
  try {
    await work();
    return 'no error';
  } catch (error) {
    if (error instanceof NativeModuleError) return \`\${error.code} \${error.packageName}\`;
    if (error instanceof ValidationError) return \`\${error.code} \${error.issues.length}: \${error.message}\`;
    if (error instanceof ParaphError) return error.code;
    return String(error);
  }
};

const pki = await testPki();
const { bytes: pdf } = await generatePdf([
  { width: 595, height: 842, rotation: 0, texts: [{ anchor: '{{Signer1}}', left: 100, baseline: 600, size: 12, font: 'Helvetica', style: 'plain' }] },
]);
const metadata: FileMetaData = parseFileMetaData(
  JSON.stringify({ Signers: { Signer1: { FormSets: ['main'] } }, FormSets: { main: { Signature: { Type: 'Signature', Location: { Search: '{{Signer1}}' } } } } }),
);
const placed = await placeFieldsFromMetadata(pdf, metadata, { signerIds: ['Signer1'] });
const fields = await listSignatureFields(placed.bytes);
const field = fields[0];
if (field === undefined) throw new Error('no signature field placed');
const signed = await signPdf(placed.bytes, { signer: pki.signers.p256.signer, signingTime: now, field: field.name });
const report: VerificationReport = await verifyPdf(signed.bytes, { trustRoots: [pki.rootPem], now });

const auditLog = appendAuditEntry([], { at: now, type: 'transaction.created', actor: 'api', data: { language: 'en-US', seal: true, signers: 0, receivers: 0 } });
const transaction: ReceiptTransaction = { id: 'consumer-1', status: 30, language: 'en-US', createdAt: now, completedAt: now, signers: [], receivers: [] };
const receipt = await buildReceipt({
  transaction,
  documents: [{ fileId: 'contract.pdf', displayName: 'contract.pdf', pages: 1, originalSha256: sha256(pdf), finalSha256: sha256(signed.bytes) }],
  auditLog,
  generatedAt: now,
  sealer: async (bytes) => (await sealPdf(bytes, { signer: pki.seal.signer, signingTime: now, organizationName: 'Consumer B.V.' })).bytes,
});
const receiptVerdict = await verifyReceipt(receipt, { trustRoots: [pki.rootPem], now });
await writeFile('signed.pdf', signed.bytes);
await writeFile('receipt.pdf', receipt);

const damaged = new Uint8Array(Buffer.from(Buffer.from(pdf).toString('latin1').replace(/ obj\\s*<</, ' obj\\n]]'), 'latin1'));
const service: Promise<ParaphService> | undefined = undefined;
console.log(
  JSON.stringify({
    sameFunctionsFromEntryPoints:
      placeFromPdfEntry === placeFieldsFromMetadata && signFromPadesEntry === signPdf && verifyFromReceiptEntry === verifyReceipt && PadesParaphError === ParaphError && service === undefined,
    fields: fields.map((f) => f.name),
    signatures: report.signatures.map((s) => ({ valid: s.valid, level: s.level })),
    receiptOk: receiptVerdict.ok,
    errors: {
      pkcs11: await failure(() => openPkcs11Signer({ modulePath: '/nonexistent/libpkcs11.so', pin: '0000' })),
      store: await failure(() => createService(loadConfig({ env: { PARAPH_DATA_DIR: 'service-data', PARAPH_SQLITE_DRIVER: 'better-sqlite3' } }))),
      smtpSink: await failure(() => startSmtpSink()),
      metadataAsBytes: await failure(async () => placeFieldsFromMetadata(pdf, new Uint8Array(1_000_000) as unknown as FileMetaData)),
      emptyPostbackSecret: await failure(async () => verifyPostback('{}', {}, '')),
      damagedPdf: await failure(() => listSignatureFields(damaged)),
    },
  }),
);
`;

/** A CommonJS consumer: \`require\` of every entry point (require(esm), Node >= 20.19). */
export const CONSUMER_CJS = `const paraph = require('paraph');
const testing = require('paraph/testing');
console.log(
  JSON.stringify({
    signPdf: typeof paraph.signPdf,
    placeFieldsFromMetadata: typeof require('paraph/pdf').placeFieldsFromMetadata,
    verifyPdf: typeof require('paraph/pades').verifyPdf,
    buildReceipt: typeof require('paraph/receipt').buildReceipt,
    paraphPlugin: typeof require('paraph/server').paraphPlugin,
    generatePdf: typeof testing.generatePdf,
  }),
);
`;

