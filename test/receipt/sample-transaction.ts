/**
 * A finished three-signer transaction with two documents and two receivers, its audit trail and the snapshot the
 * receipt is built from; all times fixed. Shared by the receipt tests and the receipt benchmark.
 */
import { appendAuditEntry, type AuditEntry, type AuditEventInput } from '../../src/receipt/audit-log.js';
import type { ReceiptDocument, ReceiptTransaction, ReceiptVerification } from '../../src/receipt/types.js';

const T0 = Date.parse('2026-11-21T09:00:00.000Z');
const at = (minutes: number): Date => new Date(T0 + minutes * 60_000);

export const SIGNERS = [
  { id: 'Signer1', name: 'Zoë Łukasiewicz-Ōta', email: 'zoe.lukasiewicz-ota@example-organisation.eu', ip: '203.0.113.17' },
  { id: 'Signer2', name: 'Jan de Vries', email: 'jan@example.nl', ip: '2001:db8:85a3::8a2e:370:7334' },
  { id: 'Signer3', name: 'Αλέξανδρος Παπαδόπουλος', email: 'alexandros.papadopoulos@example.gr', ip: '198.51.100.4' },
] as const;

export const USER_AGENT =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.2903.86';

export const DOCUMENTS: readonly ReceiptDocument[] = [
  {
    fileId: 'contract.pdf',
    displayName: 'Arbeidsovereenkomst — Zoë Łukasiewicz-Ōta',
    pages: 7,
    originalSha256: '3f1a0c6e2b9d4f8a7c5e1d0b2a4c6e8f0a1b3c5d7e9f1a2b3c4d5e6f7a8b9c0d',
    originalBytes: 183_204,
    finalSha256: 'a94b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
    finalBytes: 241_876,
  },
  {
    fileId: 'annex%20A.pdf',
    displayName: 'Annex A: salary scales 2027',
    pages: 2,
    originalSha256: '00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff',
    originalBytes: 40_961,
    finalSha256: 'ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100',
    finalBytes: 88_402,
  },
];

const CA = 'CN=paraph Signing CA,O=Example Organisation B.V.,C=NL';
const certificate = (i: number) => ({
  subject: `CN=${SIGNERS[i]!.name},E=${SIGNERS[i]!.email}`,
  serial: `5a${i}7c0ffee${i}d15ea5e0b0e${i}`,
  issuer: CA,
});
const SEAL = {
  certificate: { subject: 'CN=Example Organisation B.V. Seal,O=Example Organisation B.V.,C=NL', serial: '01f4a3', issuer: 'CN=paraph Seal CA' },
  level: 'advanced' as const,
};

/** The audit log of the sample transaction (about 40 entries). */
export function sampleAuditLog(): readonly AuditEntry[] {
  const events: AuditEventInput[] = [];
  const add = (minutes: number, event: Omit<AuditEventInput, 'at'>): void => {
    events.push({ ...event, at: at(minutes) } as AuditEventInput);
  };
  add(0, { type: 'transaction.created', actor: 'api', data: { reference: 'HR-2026-0042', language: 'en-US', seal: true, signers: 3, receivers: 2 } });
  DOCUMENTS.forEach((d, i) => {
    add(1 + i, { type: 'metadata.uploaded', actor: 'api', data: { fileId: d.fileId, sha256: 'c'.repeat(64), bytes: 512 } });
    add(1 + i, { type: 'file.uploaded', actor: 'api', data: { fileId: d.fileId, displayName: d.displayName, sha256: d.originalSha256, bytes: d.originalBytes!, pages: d.pages } });
  });
  add(4, { type: 'transaction.started', actor: 'api', data: { files: 2, signers: 3 } });
  SIGNERS.forEach((s, i) => {
    const m = 10 + i * 30;
    const actor = `signer:${s.id}` as const;
    add(m, { type: 'mail.sent', actor: 'system', data: { kind: 'invitation', recipientId: s.id, to: s.email, messageId: `<invite-${i}@paraph.example>` } });
    add(m + 1, { type: 'signer.opened', actor, data: { signerId: s.id, ip: s.ip, userAgent: USER_AGENT } });
    add(m + 2, { type: 'document.opened', actor, data: { signerId: s.id, fileId: 'contract.pdf' } });
    add(m + 3, { type: 'verification.performed', actor, data: { signerId: s.id, verification: 'PhoneNumber', result: i === 1 ? 'failed' : 'passed', evidence: { number: '••••••••' + (78 + i) } } });
    if (i === 1) add(m + 4, { type: 'verification.performed', actor, data: { signerId: s.id, verification: 'PhoneNumber', result: 'passed', evidence: { number: '••••••••79' } } });
    add(m + 5, { type: 'verification.performed', actor, data: { signerId: s.id, verification: 'Scribble', result: 'passed', evidence: { scribbleName: s.name, image: 'sha256:' + 'e'.repeat(64) } } });
    add(m + 6, { type: 'signer.signed', actor, data: { signerId: s.id, ip: s.ip, userAgent: USER_AGENT, fields: [{ fileId: 'contract.pdf', field: `${s.id}.signature` }, { fileId: 'annex%20A.pdf', field: `${s.id}.signature` }], certificate: certificate(i) } });
    add(m + 7, { type: 'postback.delivered', actor: 'system', data: { url: 'https://crm.example.com/paraph/postback?tenant=42', httpStatus: 200, attempt: 1 } });
  });
  add(101, { type: 'transaction.sealed', actor: 'system', data: { certificate: SEAL.certificate, level: 'advanced', fileIds: DOCUMENTS.map((d) => d.fileId) } });
  DOCUMENTS.forEach((d) => add(101, { type: 'document.finalized', actor: 'system', data: { fileId: d.fileId, sha256: d.finalSha256!, bytes: d.finalBytes! } }));
  add(102, { type: 'transaction.completed', actor: 'system', data: { status: 30 } });
  add(103, { type: 'mail.sent', actor: 'system', data: { kind: 'documents', recipientId: 'Receiver1', to: 'legal@example-organisation.eu', messageId: '<docs-1@paraph.example>' } });
  add(103, { type: 'mail.failed', actor: 'system', data: { kind: 'documents', recipientId: 'Receiver2', to: 'archive@example.invalid', reason: '550 5.1.1 mailbox unavailable' } });
  add(104, { type: 'postback.failed', actor: 'system', data: { url: 'https://crm.example.com/paraph/postback?tenant=42', httpStatus: 503, error: 'Service Unavailable', attempt: 1 } });
  add(110, { type: 'postback.delivered', actor: 'system', data: { url: 'https://crm.example.com/paraph/postback?tenant=42', httpStatus: 204, attempt: 2 } });
  let log: readonly AuditEntry[] = [];
  for (const event of events) log = appendAuditEntry(log, event);
  return log;
}

/** `count` entries: the sample log repeated with reminders and postbacks until it has that many. */
export function largeAuditLog(count: number): readonly AuditEntry[] {
  let log: readonly AuditEntry[] = sampleAuditLog().slice(0, Math.min(count, 5));
  let i = 0;
  while (log.length < count) {
    const s = SIGNERS[i % 3]!;
    log = appendAuditEntry(log, {
      at: new Date(T0 + 200 * 60_000 + i * 1000),
      type: i % 2 === 0 ? 'mail.sent' : 'postback.delivered',
      actor: 'system',
      data:
        i % 2 === 0
          ? { kind: 'reminder', recipientId: s.id, to: s.email, messageId: `<reminder-${i}@paraph.example>` }
          : { url: 'https://crm.example.com/paraph/postback?tenant=42', httpStatus: 200, attempt: 1 + (i % 5) },
    } as AuditEventInput);
    i++;
  }
  return log;
}

/** The transaction snapshot matching {@link sampleAuditLog}. */
export function sampleTransaction(language = 'en-US'): ReceiptTransaction {
  return {
    id: 'b10ae331-af78-4e79-a39e-5b64693b6b68',
    reference: 'HR-2026-0042',
    status: 30,
    language,
    createdAt: at(0),
    completedAt: at(102),
    seal: SEAL,
    signers: SIGNERS.map((s, i) => ({
      id: s.id,
      name: s.name,
      email: s.email,
      mobile: `+3161234${5670 + i}`,
      outcome: 'signed' as const,
      verifications: <ReceiptVerification[]>[
        ...(i === 1 ? [{ type: 'PhoneNumber', result: 'failed' as const, at: at(10 + i * 30 + 3), evidence: { Number: '••••••••79' } }] : []),
        { type: 'PhoneNumber', result: 'passed' as const, at: at(10 + i * 30 + 4), evidence: { Number: `••••••••${78 + i}` } },
        { type: 'Scribble', result: 'passed' as const, at: at(10 + i * 30 + 5), evidence: { ScribbleName: s.name } },
        { type: 'IPAddress', result: 'passed' as const, at: at(10 + i * 30 + 6), evidence: { IPAddress: s.ip } },
      ],
      signedAt: at(10 + i * 30 + 6),
      ipAddress: s.ip,
      userAgent: USER_AGENT,
      certificate: certificate(i),
      activities: [
        { code: 101, activity: 'InvitationSent', at: at(10 + i * 30) },
        { code: 103, activity: 'Opened', at: at(11 + i * 30) },
        { code: 105, activity: 'DocumentOpened', info: 'contract.pdf', at: at(12 + i * 30) },
        { code: 203, activity: 'Signed', at: at(16 + i * 30) },
      ],
    })),
    receivers: [
      { id: 'Receiver1', name: 'Legal department', email: 'legal@example-organisation.eu', documentsSentAt: at(103), activities: [] },
      { id: 'Receiver2', name: 'Archive', email: 'archive@example.invalid', activities: [] },
    ],
  };
}
