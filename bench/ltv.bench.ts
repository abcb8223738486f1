/**
 * Keys and long-term signatures benchmark:
 * 1. raw `Signer.sign` operations per second over 300 bytes of "signed attributes" for every key kind: software
 *    (WebCrypto) keys, and SoftHSM PKCS#11 keys when softhsm2 is installed, next to node:crypto's synchronous
 *    `sign` with the same key (the reference: no WebCrypto promise, no token round trip);
 * 2. the PAdES B-T → B-LT → B-LTA pipeline (signPdf with a local TSA, addValidationData with a local OCSP/CRL
 *    server, addDocumentTimestamp) on 1- and 1000-page documents, next to pdf-lib's plain load of the same file.
 * `npm run bench -- ltv [--max=1000]`. Peak RSS is this process's (the pipeline runs after the key table).
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign as nodeSign, webcrypto } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from '../src/pdf/pdf-lib.js';
import { addDocumentTimestamp } from '../src/pades/doc-timestamp.js';
import { openPkcs11Signer } from '../src/pades/keys/pkcs11.js';
import { createSoftwareSigner, generateKeyPair, type KeyKind } from '../src/pades/keys/software.js';
import { addValidationData } from '../src/pades/ltv.js';
import { signPdf } from '../src/pades/sign-pdf.js';
import type { Signer } from '../src/pades/types.js';
import { startFakeOcsp } from '../src/testing/start-fake-ocsp.js';
import { startFakeTsa } from '../src/testing/start-fake-tsa.js';
import { testPki } from '../src/testing/test-pki.js';
import { benchPdf } from './gen-pdf.js';
import { fmt, hasCommand, peakRssMb, printTable, sampleMs } from './lib.js';

const NOW = new Date('2026-11-21T10:00:00Z');
const DATA = new Uint8Array(300).fill(0x5a);
const median = (xs: readonly number[]): number => xs[Math.floor(xs.length / 2)] as number;

/** Operations per second of `op` over about `ms` milliseconds, after a short warm-up. */
async function opsPerSecond(op: () => unknown, ms = 1500): Promise<number> {
  for (let i = 0; i < 3; i++) await op();
  let count = 0;
  const start = process.hrtime.bigint();
  while (Number(process.hrtime.bigint() - start) / 1e6 < ms) {
    await op();
    count++;
  }
  return count / (Number(process.hrtime.bigint() - start) / 1e9);
}

async function keyTable(): Promise<void> {
  const rows: string[][] = [];
  const kinds: [KeyKind, string][] = [
    ['rsa-2048', 'RSA-2048 PKCS#1 v1.5'],
    ['rsa-3072', 'RSA-3072 PKCS#1 v1.5'],
    ['rsa-pss-2048', 'RSA-2048 PSS'],
    ['ecdsa-p256', 'ECDSA P-256'],
    ['ecdsa-p384', 'ECDSA P-384'],
  ];
  for (const [kind, label] of kinds) {
    const keys = await generateKeyPair(kind);
    const signer = createSoftwareSigner({ privateKey: keys.privateKey, certificateChain: [new Uint8Array([0x30, 0])] });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    const nodeKey = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    const floorOptions = kind.startsWith('rsa-pss') ? { key: nodeKey, padding: 6, saltLength: 32 } : kind.startsWith('ecdsa') ? { key: nodeKey, dsaEncoding: 'der' as const } : nodeKey;
    const software = await opsPerSecond(() => signer.sign(DATA, 'SHA-256'));
    const floor = await opsPerSecond(() => nodeSign('sha256', DATA, floorOptions));
    rows.push([label, 'software (WebCrypto)', fmt(software, 0), fmt(floor, 0)]);
  }
  if (hasCommand('softhsm2-util') && hasCommand('pkcs11-tool')) {
    const pki = await testPki();
    const dir = mkdtempSync(join(tmpdir(), 'paraph-bench-hsm-'));
    try {
      execFileSync('mkdir', ['-p', join(dir, 'tokens')]);
      writeFileSync(join(dir, 'softhsm2.conf'), `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
      process.env.SOFTHSM2_CONF = join(dir, 'softhsm2.conf');
      execFileSync('softhsm2-util', ['--init-token', '--free', '--label', 'bench', '--pin', '1234', '--so-pin', '5678'], { stdio: 'pipe' });
      for (const [id, label, identity] of [['01', 'RSA-2048 PKCS#1 v1.5', pki.signers.rsa], ['03', 'ECDSA P-256', pki.signers.p256]] as const) {
        execFileSync('softhsm2-util', ['--import', identity.keyPath, '--token', 'bench', '--label', id, '--id', id, '--pin', '1234'], { stdio: 'pipe' });
        const signer = await openPkcs11Signer({ modulePath: '/usr/lib/softhsm/libsofthsm2.so', tokenLabel: 'bench', pin: '1234', keyId: id, certificateChain: [identity.certDer] });
        try {
          rows.push([label, 'PKCS#11 (SoftHSM)', fmt(await opsPerSecond(() => signer.sign(DATA, 'SHA-256')), 0), '–']);
        } finally {
          await signer.close();
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  printTable('Signer.sign over 300 bytes, SHA-256: operations per second (one process, sequential)', ['key', 'signer', 'ops/s', 'node:crypto sign (sync, same key) ops/s'], rows);
}

async function pipelineTable(max: number): Promise<void> {
  const pki = await testPki();
  const tsa = await startFakeTsa({ pki, now: NOW });
  const ocsp = await startFakeOcsp({ pki, now: NOW });
  const timestamper = tsa.timestamper();
  const rows: string[][] = [];
  try {
    for (const pages of [1, 1000].filter((n) => n <= max)) {
      const path = await benchPdf(pages);
      const bytes = new Uint8Array(readFileSync(path));
      const runs = pages >= 1000 ? 3 : 9;
      const signer: Signer = pki.signers.p256.signer;
      // One untimed round first: JIT, keep-alive connections to the local servers, font caches.
      const warm = (await signPdf(bytes, { signer, signingTime: NOW, timestamper })).bytes;
      await addDocumentTimestamp((await addValidationData(warm, { fetcher: ocsp.fetcher, now: NOW, trustRoots: [pki.rootDer] })).bytes, { timestamper });
      const load = await sampleMs(runs, () => PDFDocument.load(bytes, { updateMetadata: false }));
      let bt: Uint8Array = bytes;
      const sign = await sampleMs(runs, async () => {
        bt = (await signPdf(bytes, { signer, signingTime: NOW, timestamper })).bytes;
      });
      let lt: Uint8Array = bt;
      const ltv = await sampleMs(runs, async () => {
        lt = (await addValidationData(bt, { fetcher: ocsp.fetcher, now: NOW, trustRoots: [pki.rootDer] })).bytes;
      });
      const docTs = await sampleMs(runs, () => addDocumentTimestamp(lt, { timestamper }));
      rows.push([String(pages), fmt(statSync(path).size / 1024 / 1024, 2), fmt(median(sign)), fmt(median(ltv)), fmt(median(docTs)), fmt(median(load)), fmt(peakRssMb(), 0)]);
    }
  } finally {
    await tsa.close();
    await ocsp.close();
  }
  printTable(
    'B-T → B-LT → B-LTA on an N-page document (ECDSA P-256 signer, TSA and OCSP/CRL on 127.0.0.1): ms p50',
    ['pages', 'MiB', 'signPdf B-T', 'addValidationData', 'addDocumentTimestamp', 'pdf-lib load', 'peak RSS MB'],
    rows,
  );
}

const maxArg = process.argv.find((a) => a.startsWith('--max='));
await keyTable();
await pipelineTable(maxArg ? Number(maxArg.slice(6)) : Infinity);
