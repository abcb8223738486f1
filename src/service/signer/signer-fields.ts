/**
 * The form fields a signer fills and signs in each document (decisions.md §4, §6): the placements of the formsets
 * the metadata gives the signer, and their Signature fields or, when the metadata gives none, the default field
 * `<signerId>.Signature` that `PUT start` placed. Also the validation of submitted values (required text fields,
 * Date `YYYY-MM-DD`, Number `42`, `-3.5` or `0,75`, Check true/false).
 */
import { ValidationError } from '../../errors.js';
import type { FieldType } from '../../domain/file-metadata.js';
import type { JsonObject, JsonValue, Signer, StoredFile, Transaction } from '../../domain/transaction.js';

/** A field of the signer in one document. */
export interface SignerField {
  /** `<formset>.<fieldKey>`. */
  readonly name: string;
  readonly type: FieldType;
  /** Check: export value; text fields: pre-filled value. */
  readonly value?: string;
  /** Text fields must hold a value when signing; check boxes are optional. */
  readonly required: boolean;
  /** Widgets in reader coordinates (points, top-left origin). */
  readonly widgets: readonly { pageNumber: number; left: number; top: number; width: number; height: number }[];
}

/** The signer's fields in `file`, in placement order (one entry per field, widgets grouped). */
export function signerFields(file: StoredFile, signer: Signer): SignerField[] {
  const byName = new Map<string, { type: FieldType; value?: string; widgets: SignerField['widgets'][number][] }>();
  for (const p of file.Placements ?? []) {
    if (!p.signerIds.includes(signer.Id)) continue;
    const entry = byName.get(p.field) ?? { type: p.type, ...(p.value !== undefined ? { value: p.value } : {}), widgets: [] };
    entry.widgets.push({ pageNumber: p.pageNumber, left: p.left, top: p.top, width: p.width, height: p.height });
    byName.set(p.field, entry);
  }
  return [...byName].map(([name, e]) => ({
    name,
    type: e.type,
    ...(e.value !== undefined ? { value: e.value } : {}),
    required: e.type === 'SingleLine' || e.type === 'Date' || e.type === 'Number',
    widgets: e.widgets,
  }));
}

/** Names of the signature fields the signer signs in `file`: their own, else the default `<signerId>.Signature`. */
export function signatureFieldNames(file: StoredFile, signer: Signer): string[] {
  const own = signerFields(file, signer).filter((f) => f.type === 'Signature').map((f) => f.name);
  if (own.length > 0) return own;
  const formSets = file.Metadata?.Signers?.[signer.Id]?.FormSets ?? [];
  const metadataHasSignature = formSets.some((key) => Object.values(file.Metadata?.FormSets?.[key] ?? {}).some((f) => f.Type === 'Signature'));
  return metadataHasSignature ? [] : [`${signer.Id}.Signature`];
}

/** A value to write into a field. */
export interface FieldValue {
  readonly name: string;
  readonly type: 'Check' | 'SingleLine' | 'Date' | 'Number';
  /** Check: on or off; text: the text. */
  readonly value: boolean | string;
  /** Check: the export value of the on state. */
  readonly exportValue?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER = /^-?\d+([.,]\d+)?$/;
const MAX_TEXT = 1000;

/**
 * Validates the submitted `Fields` (`{ "<fileId>": { "<formset>.<field>": value } }`) against the signer's fields
 * of every document and returns what to write per fileId, with the signer's Context (decisions.md §6).
 *
 * @throws ValidationError `SIGN_FIELDS_INVALID` listing every problem (unknown file or field, wrong type, missing
 *   required value, bad date or number).
 */
export function validateFieldValues(
  tx: Transaction,
  signer: Signer,
  submitted: Readonly<Record<string, Readonly<Record<string, JsonValue>>>>,
): { values: Map<string, FieldValue[]>; context: JsonObject } {
  const issues: string[] = [];
  const values = new Map<string, FieldValue[]>();
  const context: JsonObject = {};
  for (const fileId of Object.keys(submitted)) {
    if (!tx.Files.some((f) => f.FileId === fileId)) issues.push(`Fields.${fileId}: there is no document ${JSON.stringify(fileId)} in this transaction.`);
  }
  for (const file of tx.Files) {
    const given = submitted[file.FileId] ?? {};
    const fields = signerFields(file, signer).filter((f) => f.type !== 'Signature' && f.type !== 'Seal');
    for (const name of Object.keys(given)) {
      if (!fields.some((f) => f.name === name)) issues.push(`Fields.${file.FileId}.${name}: you have no field of that name in this document.`);
    }
    const out: FieldValue[] = [];
    const ctx: JsonObject = {};
    for (const field of fields) {
      const where = `Fields.${file.FileId}.${field.name}`;
      const raw = Object.hasOwn(given, field.name) ? given[field.name] : undefined;
      if (field.type === 'Check') {
        if (raw !== undefined && typeof raw !== 'boolean') {
          issues.push(`${where}: a check box takes true or false.`);
          continue;
        }
        const on = raw === true;
        out.push({ name: field.name, type: 'Check', value: on, exportValue: field.value ?? 'Yes' });
        ctx[field.name] = on;
        continue;
      }
      if (raw !== undefined && typeof raw !== 'string') {
        issues.push(`${where}: send the value as a string.`);
        continue;
      }
      const text = (raw ?? field.value ?? '').trim();
      if (text === '') {
        issues.push(`${where}: this field is required.`);
        continue;
      }
      if (text.length > MAX_TEXT || /[\u0000-\u001f\u007f]/.test(text)) {
        issues.push(`${where}: at most ${MAX_TEXT} characters on one line.`);
        continue;
      }
      if (field.type === 'Date' && !isDate(text)) {
        issues.push(`${where}: ${JSON.stringify(text)} is not a date; use YYYY-MM-DD, e.g. 2026-11-21.`);
        continue;
      }
      if (field.type === 'Number' && !NUMBER.test(text)) {
        issues.push(`${where}: ${JSON.stringify(text)} is not a number; use e.g. 42, -3.5 or 0,75.`);
        continue;
      }
      out.push({ name: field.name, type: field.type as FieldValue['type'], value: text });
      ctx[field.name] = text;
    }
    if (out.length > 0) {
      values.set(file.FileId, out);
      context[file.FileId] = ctx;
    }
  }
  if (issues.length > 0) throw new ValidationError(issues, 'SIGN_FIELDS_INVALID');
  return { values, context };
}

function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}
