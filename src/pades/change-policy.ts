/**
 * What each signature allows after it: a policy per signature (its DocMDP level when it certifies the document,
 * the approval rules otherwise, and its FieldMDP locks), applied rule by rule to the classified changes of every
 * later revision (modification-check.ts). The levels follow ISO 32000-2 §12.8.2.2 and ETSI EN 319 142-1 §5.4:
 *
 * - P=1: only /DSS updates and document time-stamps (an invisible signature field signed by a document
 *   time-stamp in the same revision), plus /Info entries no viewer shows.
 * - P=2: also filling existing fields, signing existing empty signature fields, and new invisible signature fields.
 * - P=3: also new annotations.
 * - No DocMDP (an approval signature): as P=2, and a new visible signature field only when the same revision
 *   signs it (a co-signer's field); an unsigned visible one could paint anything over the signed page.
 *
 * FieldMDP (§12.8.2.4, a /Reference FieldMDP transform or the field's /Lock): a locked field may not change after
 * the signature — not its value, its state, nor its appearance.
 */
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFString, type PDFObject } from '../pdf/pdf-lib.js';
import type { DocMdpPermission } from './docmdp.js';
import { resolveIn, type ClassifiedChange, type ObjectState, type RevisionChanges } from './modification-check.js';

/** The fields a FieldMDP transform locks: all, the listed ones, or all but the listed ones. */
export interface FieldLock {
  readonly action: 'All' | 'Include' | 'Exclude';
  readonly fields: readonly string[];
  /** Where the lock was read, for messages. */
  readonly source: string;
}

/** What a signature allows after it. */
export interface ModificationPolicy {
  /** The DocMDP level when this signature certifies the document; undefined for an approval signature. */
  readonly docMdp: DocMdpPermission | undefined;
  readonly locks: readonly FieldLock[];
}

/** One rule: the refusal of a change under a policy, or undefined when the rule has nothing against it. */
type PolicyRule = (change: ClassifiedChange, policy: ModificationPolicy) => Refusal | undefined;

interface Refusal {
  readonly rule: string;
  readonly message: string;
}

const levelName = (p: DocMdpPermission | undefined): string => (p === undefined ? 'an approval signature (no DocMDP)' : `a certification with P=${p}`);

/** DocMDP: which kinds each level lets through. */
const docMdpRule: PolicyRule = (change, { docMdp }) => {
  const p = docMdp ?? 2;
  const refuse = (rule: string, why: string): Refusal => ({ rule, message: `${change.message}: ${why} (the signature is ${levelName(docMdp)})` });
  switch (change.kind) {
    case 'dss':
    case 'form-bookkeeping':
    case 'info-bookkeeping':
      return undefined;
    case 'new-signature-field':
      if (!change.visible && change.signedHere === 'document-timestamp') return undefined;
      if (p === 1) return refuse('docmdp-p1', 'only /DSS updates and document time-stamps are allowed');
      if (!change.visible) return undefined;
      if (docMdp !== undefined) return refuse('new-visible-signature-field', 'a new visible signature field is not allowed');
      return change.signedHere === 'signature' ? undefined : refuse('new-visible-signature-field', 'a new visible signature field that this revision does not sign is not allowed');
    case 'fill':
    case 'sign':
    case 'metadata':
      return p === 1 ? refuse('docmdp-p1', 'only /DSS updates and document time-stamps are allowed') : undefined;
    case 'annotation':
      if (p === 3) return undefined;
      return refuse(docMdp === undefined ? 'annotation-after-approval' : `docmdp-p${p}`, 'new annotations are allowed only after a certification with P=3');
  }
};

function isLocked(field: string, lock: FieldLock): boolean {
  const listed = lock.fields.some((f) => field === f || field.startsWith(`${f}.`));
  return lock.action === 'All' || (lock.action === 'Include' ? listed : !listed);
}

/** FieldMDP: a locked field does not change. An invisible new signature field touches no field (as pyHanko). */
const fieldMdpRule: PolicyRule = (change, { locks }) => {
  if (change.field === undefined || change.kind === 'dss' || change.kind === 'annotation') return undefined;
  if (change.kind === 'new-signature-field' && !change.visible) return undefined;
  const lock = locks.find((l) => isLocked(change.field!, l));
  return lock ? { rule: 'fieldmdp-lock', message: `${change.message}: the field ${change.field} is locked by ${lock.source} (/Action /${lock.action})` } : undefined;
};

const RULES: readonly PolicyRule[] = [docMdpRule, fieldMdpRule];

/** The refusals of one revision's classified changes under `policy`, each naming its rule and the revision. */
export function policyRefusals(revision: RevisionChanges, policy: ModificationPolicy): { refused: string[]; allowed: string[] } {
  const refused: string[] = [];
  const allowed: string[] = [];
  for (const change of revision.changes) {
    const refusals = RULES.map((rule) => rule(change, policy)).filter((r): r is Refusal => r !== undefined);
    if (refusals.length === 0) allowed.push(change.message);
    for (const r of refusals) refused.push(`[${r.rule}] ${r.message}`);
  }
  return { refused, allowed };
}

function textOf(value: PDFObject | undefined): string | undefined {
  if (!(value instanceof PDFString || value instanceof PDFHexString)) return undefined;
  try {
    return value.decodeText();
  } catch {
    return Buffer.from(value.asBytes()).toString('latin1');
  }
}

/** Reads a FieldMDP parameter dictionary (/Action, /Fields); undefined when it names no known action. */
function readFieldLock(state: ObjectState, params: PDFDict | undefined, source: string): FieldLock | undefined {
  const action = params?.get(PDFName.of('Action'));
  const name = action instanceof PDFName ? action.decodeText() : undefined;
  if (name !== 'All' && name !== 'Include' && name !== 'Exclude') return undefined;
  const list = resolveIn(state, params?.get(PDFName.of('Fields')));
  const fields = list instanceof PDFArray ? list.asArray().map((f) => textOf(resolveIn(state, f))).filter((f): f is string => f !== undefined) : [];
  return { action: name, fields, source };
}

/** The FieldMDP locks of a signature: its /Reference FieldMDP transforms and the /Lock of its field. */
export function readFieldLocks(state: ObjectState, signature: PDFDict, field: PDFDict | undefined): FieldLock[] {
  const locks: FieldLock[] = [];
  const references = resolveIn(state, signature.get(PDFName.of('Reference')));
  for (const entry of references instanceof PDFArray ? references.asArray() : []) {
    const reference = resolveIn(state, entry);
    if (!(reference instanceof PDFDict) || reference.get(PDFName.of('TransformMethod')) !== PDFName.of('FieldMDP')) continue;
    const params = resolveIn(state, reference.get(PDFName.of('TransformParams')));
    const lock = readFieldLock(state, params instanceof PDFDict ? params : undefined, 'the signature\'s FieldMDP reference');
    if (lock) locks.push(lock);
  }
  const lockDict = resolveIn(state, field?.get(PDFName.of('Lock')));
  const fieldLock = readFieldLock(state, lockDict instanceof PDFDict ? lockDict : undefined, 'the signature field\'s /Lock');
  if (fieldLock) locks.push(fieldLock);
  return locks;
}
