/**
 * The form fields a signer fills and signs in each document (docs/design/fields.md#filling): the placements of the
 * formsets the metadata gives the signer (a formset's Radio fields as one radio group), the PDF's own fields of a
 * fillable PDF, and their Signature fields or, when the metadata gives none, the default field `<signerId>.Signature`
 * that `PUT start` placed. Also the validation of a sign request's `Fields` (keys plain or `<formset>.<key>`; check
 * boxes true/false or their export value; radio groups the chosen button's export value; text fields required where
 * paraph placed them, Date `YYYY-MM-DD`, Number `42`, `-3.5` or `0,75`) and the signer's Context that results.
 */
import { hasForbiddenCharacters } from '../../domain/text-rules.js';
import { fieldSpecOf, fieldValueText, localisedTextFor, type FieldType } from '../../pdf/file-metadata.js';
import type { JsonObject, JsonValue, Signer, StoredFile, Transaction } from '../../domain/transaction.js';
import { ValidationError } from '../../errors.js';
import type { FieldPlacement } from '../../pdf/resolve-locations.js';

/** A widget in reader coordinates (points, top-left origin). */
export interface SignerWidget {
  readonly PageNumber: number;
  readonly Left: number;
  readonly Top: number;
  readonly Width: number;
  readonly Height: number;
}

/** A button of a radio group. */
export interface SignerRadioOption {
  /** The export value to send to choose it. */
  readonly Value: string;
  /** The button's field key in FileMetaData (for a fillable PDF: the export value). */
  readonly Key: string;
  /** The button's FileMetaData Label and Tooltip in the signer's language. */
  readonly Label?: string;
  readonly Tooltip?: string;
  readonly Widgets: readonly SignerWidget[];
}

/** A field of the signer in one document. */
export interface SignerField {
  /** The field's fully qualified name in the PDF (`<formset>.<fieldKey>`; a radio group's group name). */
  readonly Name: string;
  /**
   * The key of the field in the sign body and the Context: the field key (a radio group: its formset; a fillable PDF's
   * field: its PDF name), `<formset>.<key>` where two of the signer's formsets in this document share the key.
   */
  readonly Key: string;
  readonly Type: FieldType;
  /**
   * The FileMetaData field's Label and Tooltip in the signer's language (docs/design/fields.md#labels-and-tooltips);
   * absent when the metadata gives none (a radio group: its buttons carry theirs).
   */
  readonly Label?: string;
  readonly Tooltip?: string;
  /** Check and Radio: the export value (a radio group: the pre-selected button's); text fields: pre-filled value. */
  readonly Value?: string;
  /** Check: pre-checked. */
  readonly Checked?: boolean;
  /** Radio: the buttons. */
  readonly Options?: readonly SignerRadioOption[];
  /** Text fields paraph placed must hold a value when signing; a fillable PDF's fields when it marks them required. */
  readonly Required: boolean;
  /** Where the field appears: each widget's page and box in reader coordinates, which the page draws its input over. */
  readonly Widgets: readonly SignerWidget[];
}

interface Collected {
  name: string;
  formSet: string;
  fieldKey: string;
  type: FieldType;
  existing: boolean;
  required: boolean;
  placements: FieldPlacement[];
}

/**
 * The signer's fields in `file`, in placement order (one entry per field, widgets grouped). Labels and Tooltips are
 * chosen for `languages`, most wanted first (the signer's language, then the transaction's; `localisedTextFor`).
 */
export function signerFields(file: StoredFile, signer: Signer, languages: readonly string[] = []): SignerField[] {
  const texts = (p: FieldPlacement): { Label?: string; Tooltip?: string } => {
    const spec = p.existing === true ? undefined : fieldSpecOf(file.Metadata, p.formSet, p.fieldKey);
    const label = localisedTextFor(spec?.Label, languages);
    const tooltip = localisedTextFor(spec?.Tooltip, languages);
    return { ...(label !== undefined ? { Label: label } : {}), ...(tooltip !== undefined ? { Tooltip: tooltip } : {}) };
  };
  const byName = new Map<string, Collected>();
  for (const p of file.Placements ?? []) {
    if (!p.signerIds.includes(signer.Id)) continue;
    let entry = byName.get(p.field);
    if (entry === undefined) {
      entry = {
        name: p.field,
        formSet: p.formSet,
        fieldKey: p.type === 'Radio' && p.existing !== true ? p.formSet : p.fieldKey,
        type: p.type,
        existing: p.existing === true,
        required: p.existing === true ? p.required === true : p.type === 'SingleLine' || p.type === 'Date' || p.type === 'Number',
        placements: [],
      };
      byName.set(p.field, entry);
    }
    entry.placements.push(p);
  }
  const entries = [...byName.values()];
  const keyCount = new Map<string, number>();
  for (const e of entries) keyCount.set(e.fieldKey, (keyCount.get(e.fieldKey) ?? 0) + 1);
  return entries.map((e): SignerField => {
    const key = (keyCount.get(e.fieldKey) ?? 0) > 1 && !e.existing ? qualifiedKey(e) : e.fieldKey;
    const widgets = e.placements.map(widgetOf);
    const first = e.placements[0] as FieldPlacement;
    if (e.type === 'Radio') {
      const options: SignerRadioOption[] = [];
      for (const p of e.placements) {
        const value = p.value ?? p.fieldKey;
        const option = options.find((o) => o.Value === value);
        if (option) (option.Widgets as SignerWidget[]).push(widgetOf(p));
        else options.push({ Value: value, Key: e.existing ? value : p.fieldKey, ...texts(p), Widgets: [widgetOf(p)] });
      }
      const selected = e.placements.find((p) => p.checked === true);
      return { Name: e.name, Key: key, Type: 'Radio', ...(selected ? { Value: selected.value ?? selected.fieldKey } : {}), Options: options, Required: e.required, Widgets: widgets };
    }
    return {
      Name: e.name,
      Key: key,
      Type: e.type,
      ...texts(first),
      ...(first.value !== undefined ? { Value: first.value } : {}),
      ...(e.type === 'Check' && first.checked === true ? { Checked: true } : {}),
      Required: e.required,
      Widgets: widgets,
    };
  });
}

/** `<formset>.<key>` of a placed field (a radio group: its formset). */
function qualifiedKey(e: Collected): string {
  return e.type === 'Radio' ? e.formSet : `${e.formSet}.${e.fieldKey}`;
}

function widgetOf(p: FieldPlacement): SignerWidget {
  return { PageNumber: p.pageNumber, Left: p.left, Top: p.top, Width: p.width, Height: p.height };
}

/**
 * Names of the signature fields the signer signs in `file`: the Signature placements start resolved for them, which
 * include the default `<signerId>.Signature` field when their metadata gives none (that rule lives only where the
 * placements are resolved, src/pdf/place-fields.ts).
 */
export function signatureFieldNames(file: StoredFile, signer: Signer): string[] {
  return signerFields(file, signer).filter((f) => f.Type === 'Signature').map((f) => f.Name);
}

/** A value to write into a field. */
export interface FieldValue {
  /** The field's fully qualified name in the PDF. */
  readonly name: string;
  readonly type: 'Check' | 'Radio' | 'SingleLine' | 'Date' | 'Number';
  /** Check: on or off; Radio: the chosen export value; text: the text. Only fields the signer sent are written. */
  readonly value: boolean | string;
  /** Check: the export value of the on state (a fillable PDF's check box: its own on-state wins). */
  readonly exportValue?: string;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/;
const MAX_TEXT = 1000;

/**
 * Validates the submitted `Fields` (`{ "<fileId>": { "<key>": value } }`, the key plain or `<formset>.<key>`, or the
 * field's PDF name) against the signer's fields of every document and returns what to write per fileId, with the
 * signer's Context: every file of the transaction, `{}` where the signer has no fields
 * (docs/design/signer-api.md#context-after-signing).
 *
 * @throws ValidationError `SIGN_FIELDS_INVALID` listing every problem (unknown file or field, a field given twice,
 *   wrong type, missing required value, bad date or number, an export value the field does not have).
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
    const fields = signerFields(file, signer).filter((f) => f.Type !== 'Signature' && f.Type !== 'Seal');
    const given = resolveKeys(file.FileId, fields, submitted[file.FileId] ?? {}, issues);
    const out: FieldValue[] = [];
    const ctx: JsonObject = {};
    for (const field of fields) {
      const where = `Fields.${file.FileId}.${field.Key}`;
      const raw = given.get(field);
      const value = checkValue(field, raw, where, issues);
      if (value === undefined) continue;
      ctx[field.Key] = value.context;
      if (value.write !== undefined) out.push(value.write);
    }
    if (out.length > 0) values.set(file.FileId, out);
    context[file.FileId] = ctx;
  }
  if (issues.length > 0) throw new ValidationError(issues, 'SIGN_FIELDS_INVALID');
  return { values, context };
}

/**
 * Maps each submitted key to its field: the field's key, `<formset>.<key>`, its PDF name, or (a radio group) its
 * formset. A `null` value counts as not sent.
 */
function resolveKeys(
  fileId: string,
  fields: readonly SignerField[],
  given: Readonly<Record<string, JsonValue>>,
  issues: string[],
): Map<SignerField, JsonValue> {
  const aliases = new Map<string, SignerField | null>();
  const add = (alias: string, field: SignerField): void => {
    const known = aliases.get(alias);
    aliases.set(alias, known === undefined || known === field ? field : null); // null: ambiguous
  };
  for (const f of fields) {
    add(f.Key, f);
    add(f.Name, f);
  }
  const resolved = new Map<SignerField, JsonValue>();
  const keyOf = new Map<SignerField, string>();
  for (const [key, value] of Object.entries(given)) {
    const field = aliases.get(key);
    if (field === undefined) {
      issues.push(`Fields.${fileId}.${key}: you have no field of that name in this document.`);
      continue;
    }
    if (field === null) {
      issues.push(`Fields.${fileId}.${key}: more than one of your fields has this key; send it as <formset>.${key}.`);
      continue;
    }
    const earlier = keyOf.get(field);
    if (earlier !== undefined) {
      issues.push(`Fields.${fileId}.${key}: the field is also sent as ${JSON.stringify(earlier)}; send it once.`);
      continue;
    }
    keyOf.set(field, key);
    if (value !== null) resolved.set(field, value);
  }
  return resolved;
}

/** The value to write and to record in the Context, or undefined (with an issue) when `raw` is not acceptable. */
function checkValue(
  field: SignerField,
  raw: JsonValue | undefined,
  where: string,
  issues: string[],
): { write?: FieldValue; context: JsonValue } | undefined {
  switch (field.Type) {
    case 'Check': {
      const exportValue = field.Value ?? 'Yes';
      let on: boolean;
      // Not sent: the box stays as the PDF has it (pre-set by the metadata, or by an earlier signer of a shared formset).
      if (raw === undefined) return { context: field.Checked === true };
      if (typeof raw === 'boolean') on = raw;
      else if (raw === exportValue) on = true;
      else if (raw === 'Off') on = false;
      else {
        issues.push(`${where}: a check box takes true, false or its export value ${JSON.stringify(exportValue)}.`);
        return undefined;
      }
      return { write: { name: field.Name, type: 'Check', value: on, exportValue }, context: on };
    }
    case 'Radio': {
      const options = field.Options ?? [];
      let chosen: string | undefined;
      if (raw === undefined) {
        if (field.Value === undefined && field.Required) {
          issues.push(`${where}: this field is required.`);
          return undefined;
        }
        return { context: field.Value ?? null };
      }
      if (typeof raw === 'string' || typeof raw === 'number') {
        const text = typeof raw === 'number' ? fieldValueText(raw) : raw;
        chosen = options.find((o) => o.Value === text)?.Value;
        if (chosen === undefined) {
          issues.push(`${where}: choose one of ${options.map((o) => JSON.stringify(o.Value)).join(', ')}.`);
          return undefined;
        }
      } else {
        issues.push(`${where}: a radio group takes the export value of the chosen button (${options.map((o) => JSON.stringify(o.Value)).join(', ')}).`);
        return undefined;
      }
      return { write: { name: field.Name, type: 'Radio', value: chosen }, context: chosen };
    }
    case 'SingleLine':
    case 'Date':
    case 'Number': {
      if (raw !== undefined && typeof raw !== 'string' && !(typeof raw === 'number' && Number.isFinite(raw) && field.Type !== 'Date')) {
        issues.push(`${where}: send the value as a string.`);
        return undefined;
      }
      if (raw === undefined) {
        // Not sent: the pre-filled value (the metadata's, or the PDF's own) is already in the PDF and stays.
        if ((field.Value ?? '').trim() === '' && field.Required) {
          issues.push(`${where}: this field is required.`);
          return undefined;
        }
        return { context: field.Type === 'Number' ? contextNumber(field.Value ?? '') : (field.Value ?? '') };
      }
      const text = (typeof raw === 'number' ? fieldValueText(raw) : raw).trim();
      if (text === '') {
        if (field.Required) {
          issues.push(`${where}: this field is required.`);
          return undefined;
        }
        return { write: { name: field.Name, type: field.Type, value: '' }, context: '' };
      }
      if (text.length > MAX_TEXT || hasForbiddenCharacters(text)) {
        issues.push(`${where}: at most ${MAX_TEXT} characters on one line.`);
        return undefined;
      }
      if (field.Type === 'Date' && !isDate(text)) {
        issues.push(`${where}: ${JSON.stringify(text)} is not a date; use YYYY-MM-DD, e.g. 2026-11-21.`);
        return undefined;
      }
      if (field.Type === 'Number' && !NUMBER.test(text)) {
        issues.push(`${where}: ${JSON.stringify(text)} is not a number; use e.g. 42, -3.5 or 0,75.`);
        return undefined;
      }
      // The PDF shows the text as typed; the Context carries a Number field's value as a JSON number.
      return { write: { name: field.Name, type: field.Type, value: text }, context: field.Type === 'Number' ? contextNumber(text) : text };
    }
    default:
      return undefined;
  }
}

function isDate(text: string): boolean {
  const m = DATE.exec(text);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** A Number field's value in the Context: a JSON number (`0,75` → 0.75); an empty or unreadable text stays as it is. */
function contextNumber(text: string): number | string {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return text;
  const value = Number(trimmed.replace(',', '.'));
  return Number.isFinite(value) ? value : text;
}
