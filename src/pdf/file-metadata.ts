/**
 * FileMetaData: the JSON a client uploads next to a PDF to say which fields go where 
 * (docs/design/files.md#filemetadata). Parses untrusted text or bytes with a size limit and a nesting guard, then
 * validates the parsed value by hand, collecting every broken rule as a message that names the JSON path and the rule.
 */
import { ValidationError } from '../errors.js';
import { unpairedSurrogateProblem } from './unicode-text.js';

/** The kinds of field a Location can place (docs/design/locations.md). */
export type FieldType = 'Signature' | 'Seal' | 'Check' | 'Radio' | 'SingleLine' | 'Date' | 'Number';

/** Every {@link FieldType}, in the order the spec lists them. */
export const FIELD_TYPES: readonly FieldType[] = ['Signature', 'Seal', 'Check', 'Radio', 'SingleLine', 'Date', 'Number'];

/**
 * A field's `Value` as the official clients send it: a string, a number or a boolean (docs/design/fields.md#values).
 */
export type FieldValueInput = string | number | boolean;

/**
 * A text shown to the signer (docs/design/fields.md#labels-and-tooltips): one string for every language, or one per
 * language tag, `{ "nl": "Plaats", "en": "Place" }` ({@link localisedTextFor} chooses).
 */
export type LocalisedText = string | Readonly<Record<string, string>>;

/**
 * Where a field goes, in PDF points, CSS-absolute-positioning style inside the matched text's box (with `Search`) or
 * the page (docs/design/locations.md#occurrence). After validation the alias `Occurrence` has been folded into
 * `Occurence`. Over-constrained like CSS (Left, Right and Width all given; likewise Top, Bottom and Height): Right
 * (Bottom) is ignored, as the .NET client's own test sends such Locations.
 */
export interface Location {
  Search?: string;
  /** 1-based match to use; without it every match gets a widget. */
  Occurence?: number;
  Top?: number;
  Right?: number;
  Bottom?: number;
  Left?: number;
  Width?: number;
  Height?: number;
  /** 1-based page; required without `Search`, restricts the search with it. */
  PageNumber?: number;
}

/** One field of a formset. */
export interface FieldSpec {
  Type: FieldType;
  /**
   * Check: a string (or number) is the export value when checked (`Yes` when absent; not `Off`, at most 127 UTF-8
   * bytes), `true`/`false` pre-set the box (export value `Yes`); Radio: a string (or number) is the button's export
   * value (else its key), `true` pre-selects it; SingleLine: the pre-filled value (one line, a number written as
   * such); Date: pre-filled `YYYY-MM-DD`; Number: pre-filled `42`, `-3.5`, `0,75` or a JSON number; never on
   * Signature or Seal. Kept as sent.
   */
  Value?: FieldValueInput;
  Location: Location;
  /**
   * What the signer is asked for, shown with the field on the signing page ("Place of signing"; paraph's own, Signhost
   * has none: its `Value` is not a label). At most 255 characters, one line.
   */
  Label?: LocalisedText;
  /**
   * A longer hint, shown on the signing page and written into the PDF field's alternate name (/TU), which readers show
   * as its tooltip. At most 1000 characters, one line.
   */
  Tooltip?: LocalisedText;
}

/** A signer's entry in the metadata: the formsets whose fields that signer fills. */
export interface SignerFormSets {
  FormSets: string[];
}

/** Validated FileMetaData. Maps keep the order the client sent. */
export interface FileMetaData {
  DisplayName?: string;
  /** Order of the document on the signing page. */
  DisplayOrder?: number;
  /** Text shown with the document on the signing page. */
  Description?: string;
  SetParaph?: boolean;
  Signers?: Record<string, SignerFormSets>;
  FormSets?: Record<string, Record<string, FieldSpec>>;
}

/** What {@link validateFileMetaData} needs to know besides the JSON. */
export interface ValidateFileMetaDataOptions {
  /**
   * The fileId the metadata belongs to. A signer's `FormSets` entry equal to it (with no such key in `FormSets`)
   * gives that signer the PDF's own form fields (Signhost's fillable PDFs, docs/design/fields.md#fillable-pdfs);
   * without `fileId` such an entry is refused like any unknown formset.
   */
  fileId?: string;
}

/** Limits applied by {@link parseFileMetaData}. */
export interface ParseFileMetaDataOptions extends ValidateFileMetaDataOptions {
  /** Largest accepted input in bytes (UTF-8). Default 1 MiB. */
  maxBytes?: number;
  /** Deepest accepted nesting of JSON objects and arrays. Default 32 (valid metadata needs 5). */
  maxDepth?: number;
}

/** Error code of every FileMetaData rule violation. */
const INVALID_FILE_METADATA = 'INVALID_FILE_METADATA';
/** Error code when the metadata is larger than `maxBytes`. */
const FILE_METADATA_TOO_LARGE = 'FILE_METADATA_TOO_LARGE';

const DEFAULT_MAX_BYTES = 1024 * 1024;
const DEFAULT_MAX_DEPTH = 32;
const KEY_PATTERN = /^[A-Za-z0-9_]{1,255}$/;
const SIGNER_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_DISPLAY_NAME = 255;
const MAX_DESCRIPTION = 4096;
const MAX_VALUE = 4096;
/** Implementation limit of a PDF name (ISO 32000-2 Annex C): the checkbox export value becomes one. */
const MAX_EXPORT_VALUE_BYTES = 127;
const DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;
const NUMBER_PATTERN = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)$/;

const ROOT_PROPS = ['DisplayName', 'DisplayOrder', 'Description', 'SetParaph', 'Signers', 'FormSets'] as const;
const SIGNER_PROPS = ['FormSets'] as const;
/** `Link` is documented on a field by Signhost's OpenAPI (the Python client sends it as null); it is ignored. */
const FIELD_PROPS = ['Type', 'Value', 'Location', 'Label', 'Tooltip', 'Link'] as const;
const MAX_LABEL = 255;
const MAX_TOOLTIP = 1000;
/** Languages one Label or Tooltip may carry. */
const MAX_TEXT_LANGUAGES = 32;
/** A BCP 47 language tag as far as choosing a text needs it: `nl`, `de-AT`, `en-US`, `zh-Hant-TW`. */
const LANGUAGE_TAG_PATTERN = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$/;
const LOCATION_PROPS = [
  'Search',
  'Occurence',
  'Occurrence',
  'Top',
  'Right',
  'Bottom',
  'Left',
  'Width',
  'Height',
  'PageNumber',
] as const;

type JsonObject = Record<string, unknown>;

/**
 * Parses FileMetaData from raw JSON text or UTF-8 bytes and validates it. Input larger than `maxBytes`, nested deeper
 * than `maxDepth`, not UTF-8 or not JSON is refused before or instead of building the value, so a hostile upload
 * cannot exhaust memory or the stack.
 *
 * @throws ValidationError with code `INVALID_FILE_METADATA` (or `FILE_METADATA_TOO_LARGE`), `issues` listing every rule broken.
 * @example
 * const metadata = parseFileMetaData('{"FormSets":{"f":{"sig":{"Type":"Signature","Location":{"Search":"{{Signer1}}"}}}}}');
 */
export function parseFileMetaData(input: string | Uint8Array, options: ParseFileMetaDataOptions = {}): FileMetaData {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const size = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.length;
  if (size > maxBytes) {
    throw new ValidationError(
      [`FileMetaData: ${size} bytes is too large; at most ${maxBytes} bytes are accepted`],
      FILE_METADATA_TOO_LARGE,
    );
  }
  let text: string;
  if (typeof input === 'string') {
    text = input;
  } else {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      throw new ValidationError(['FileMetaData: not valid UTF-8 text; send JSON encoded as UTF-8'], INVALID_FILE_METADATA);
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const depth = jsonNestingDepth(text);
  if (depth > maxDepth) {
    throw new ValidationError(
      [`FileMetaData: JSON nested ${depth} levels deep; at most ${maxDepth} levels are accepted`],
      INVALID_FILE_METADATA,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ValidationError([`FileMetaData: not valid JSON (${reason})`], INVALID_FILE_METADATA);
  }
  const lone = unpairedSurrogateProblem(value, 'FileMetaData');
  if (lone !== undefined) throw new ValidationError([lone.startsWith('FileMetaData') ? lone : `FileMetaData.${lone}`], INVALID_FILE_METADATA);
  return validateFileMetaData(value, options.fileId !== undefined ? { fileId: options.fileId } : {});
}

/** Deepest nesting of `{`/`[` outside strings, in one linear scan; malformed JSON is left for JSON.parse to report. */
function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return max;
}

/**
 * Validates an already-parsed JSON value as FileMetaData (docs/design/files.md#filemetadata) and returns a clean
 * copy: only known properties, `null` treated as absent (the Python client sends every unset property as null),
 * `Occurrence` folded into `Occurence`. Every broken rule is collected before throwing.
 *
 * @throws ValidationError with code `INVALID_FILE_METADATA`; each issue reads `<JSON path>: <rule>`.
 * @example
 * validateFileMetaData({ FormSets: { f: { s: { Type: 'Signature', Location: { PageNumber: 1 } } } } });
 */
export function validateFileMetaData(input: unknown, options: ValidateFileMetaDataOptions = {}): FileMetaData {
  const issues: string[] = [];
  const root = expectObject(input, 'FileMetaData', issues);
  if (!root) throw new ValidationError(issues, INVALID_FILE_METADATA);
  checkProperties(root, 'FileMetaData', ROOT_PROPS, issues, '');
  const out: FileMetaData = {};

  const displayName = readString(root, 'DisplayName', '', issues);
  if (displayName !== undefined) {
    if ([...displayName].length > MAX_DISPLAY_NAME) {
      issues.push(`DisplayName: must be at most ${MAX_DISPLAY_NAME} characters (got ${[...displayName].length})`);
    } else if (hasControlCharacter(displayName)) {
      issues.push('DisplayName: must not contain control characters');
    } else {
      out.DisplayName = displayName;
    }
  }
  const displayOrder = readNumber(root, 'DisplayOrder', '', issues);
  if (displayOrder !== undefined) {
    if (!Number.isSafeInteger(displayOrder)) issues.push(`DisplayOrder: must be an integer (got ${displayOrder})`);
    else out.DisplayOrder = displayOrder;
  }
  const description = readString(root, 'Description', '', issues);
  if (description !== undefined) {
    if ([...description].length > MAX_DESCRIPTION) {
      issues.push(`Description: must be at most ${MAX_DESCRIPTION} characters (got ${[...description].length})`);
    } else {
      out.Description = description;
    }
  }
  if (has(root, 'SetParaph')) {
    const v = root.SetParaph;
    if (typeof v !== 'boolean') issues.push(`SetParaph: must be true or false (got ${describe(v)})`);
    else out.SetParaph = v;
  }

  const formSets = has(root, 'FormSets') ? validateFormSets(root.FormSets, issues) : undefined;
  if (formSets) out.FormSets = formSets;
  if (has(root, 'Signers')) {
    const declared = has(root, 'FormSets') && isObject(root.FormSets) ? root.FormSets : {};
    const signers = validateSigners(root.Signers, declared, options.fileId, issues);
    if (signers) out.Signers = signers;
  }

  if (issues.length > 0) throw new ValidationError(issues, INVALID_FILE_METADATA);
  return out;
}

function validateSigners(
  value: unknown,
  formSets: JsonObject,
  fileId: string | undefined,
  issues: string[],
): Record<string, SignerFormSets> | undefined {
  const obj = expectObject(value, 'Signers', issues);
  if (!obj) return undefined;
  const entries: [string, SignerFormSets][] = [];
  for (const id of Object.keys(obj)) {
    const path = `Signers.${id}`;
    if (!SIGNER_ID_PATTERN.test(id)) {
      issues.push(`Signers: signer id ${JSON.stringify(id)} must be 1 to 64 characters of A-Z, a-z, 0-9, _ and -`);
      continue;
    }
    if (obj[id] === null) continue;
    const signer = expectObject(obj[id], path, issues);
    if (!signer) continue;
    checkProperties(signer, path, SIGNER_PROPS, issues);
    if (!has(signer, 'FormSets')) {
      issues.push(`${path}.FormSets: is required (an array of formset keys)`);
      continue;
    }
    const list = signer.FormSets;
    if (!Array.isArray(list)) {
      issues.push(`${path}.FormSets: must be an array of formset keys (got ${describe(list)})`);
      continue;
    }
    const keys: string[] = [];
    list.forEach((key: unknown, i) => {
      const itemPath = `${path}.FormSets[${i}]`;
      if (key === null) return;
      if (typeof key !== 'string') issues.push(`${itemPath}: must be a formset key string (got ${describe(key)})`);
      else if (!Object.hasOwn(formSets, key) && key !== fileId) {
        issues.push(`${itemPath}: ${JSON.stringify(key)} does not name a key of FormSets`);
      } else if (keys.includes(key)) issues.push(`${itemPath}: ${JSON.stringify(key)} is listed twice`);
      else keys.push(key);
    });
    entries.push([id, { FormSets: keys }]);
  }
  return Object.fromEntries(entries);
}

function validateFormSets(
  value: unknown,
  issues: string[],
): Record<string, Record<string, FieldSpec>> | undefined {
  const obj = expectObject(value, 'FormSets', issues);
  if (!obj) return undefined;
  const sets: [string, Record<string, FieldSpec>][] = [];
  for (const setKey of Object.keys(obj)) {
    if (!KEY_PATTERN.test(setKey)) {
      issues.push(`FormSets: formset key ${JSON.stringify(setKey)} must be 1 to 255 characters of A-Z, a-z, 0-9 and _`);
      continue;
    }
    const setPath = `FormSets.${setKey}`;
    if (obj[setKey] === null) continue;
    const set = expectObject(obj[setKey], setPath, issues);
    if (!set) continue;
    const fields: [string, FieldSpec][] = [];
    for (const fieldKey of Object.keys(set)) {
      if (!KEY_PATTERN.test(fieldKey)) {
        issues.push(`${setPath}: field key ${JSON.stringify(fieldKey)} must be 1 to 255 characters of A-Z, a-z, 0-9 and _`);
        continue;
      }
      if (set[fieldKey] === null) continue;
      const field = validateField(set[fieldKey], `${setPath}.${fieldKey}`, issues);
      if (field) fields.push([fieldKey, field]);
    }
    checkRadioGroup(fields, setPath, issues);
    sets.push([setKey, Object.fromEntries(fields)]);
  }
  return Object.fromEntries(sets);
}

function validateField(value: unknown, path: string, issues: string[]): FieldSpec | undefined {
  const obj = expectObject(value, path, issues);
  if (!obj) return undefined;
  checkProperties(obj, path, FIELD_PROPS, issues);
  const before = issues.length;

  let type: FieldType | undefined;
  if (!has(obj, 'Type')) issues.push(`${path}.Type: is required (one of ${FIELD_TYPES.join(', ')})`);
  else if (typeof obj.Type !== 'string' || !(FIELD_TYPES as readonly string[]).includes(obj.Type)) {
    issues.push(`${path}.Type: must be one of ${FIELD_TYPES.join(', ')} (got ${describe(obj.Type)})`);
  } else type = obj.Type as FieldType;

  let fieldValue: FieldValueInput | undefined;
  if (has(obj, 'Value')) {
    const v = obj.Value;
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) fieldValue = v;
    else issues.push(`${path}.Value: must be a string, a number or true/false (got ${describe(v)})`);
  }
  if (fieldValue !== undefined && type !== undefined) checkValue(type, fieldValue, `${path}.Value`, issues);

  let location: Location | undefined;
  if (!has(obj, 'Location')) issues.push(`${path}.Location: is required`);
  else location = validateLocation(obj.Location, `${path}.Location`, issues);

  const label = readLocalisedText(obj, 'Label', path, MAX_LABEL, issues);
  const tooltip = readLocalisedText(obj, 'Tooltip', path, MAX_TOOLTIP, issues);

  if (issues.length > before || !type || !location) return undefined;
  const field: FieldSpec = { Type: type, Location: location };
  if (fieldValue !== undefined) field.Value = fieldValue;
  if (label !== undefined) field.Label = label;
  if (tooltip !== undefined) field.Tooltip = tooltip;
  return field;
}

/**
 * A field's Label or Tooltip: a string, or an object of language tag → string (`null` entries count as absent). Each
 * text one line of 1 to `max` characters, without control, line-separator or bidirectional formatting characters (a
 * label must read as what it is); the tags unique whatever their case.
 */
function readLocalisedText(obj: JsonObject, key: string, path: string, max: number, issues: string[]): LocalisedText | undefined {
  if (!has(obj, key)) return undefined;
  const full = `${path}.${key}`;
  const value = obj[key];
  if (typeof value === 'string') {
    const problem = shownTextProblem(value, max);
    if (problem) issues.push(`${full}: ${problem}`);
    return problem ? undefined : value;
  }
  if (!isObject(value)) {
    issues.push(`${full}: must be a string or an object of language tag to text, e.g. {"nl": "…", "en": "…"} (got ${describe(value)})`);
    return undefined;
  }
  const before = issues.length;
  const texts: [string, string][] = [];
  const seen = new Set<string>();
  for (const tag of Object.keys(value)) {
    const text = value[tag];
    if (text === null) continue;
    if (!LANGUAGE_TAG_PATTERN.test(tag)) {
      issues.push(`${full}: ${JSON.stringify(tag.length > 40 ? tag.slice(0, 40) + '…' : tag)} is not a language tag such as "nl", "de-AT" or "en-US"`);
      continue;
    }
    if (seen.has(tag.toLowerCase())) {
      issues.push(`${full}.${tag}: the language is given twice (tags are compared without regard to case)`);
      continue;
    }
    seen.add(tag.toLowerCase());
    if (typeof text !== 'string') {
      issues.push(`${full}.${tag}: must be a string (got ${describe(text)})`);
      continue;
    }
    const problem = shownTextProblem(text, max);
    if (problem) issues.push(`${full}.${tag}: ${problem}`);
    else texts.push([tag, text]);
  }
  if (issues.length > before) return undefined;
  if (texts.length === 0) {
    issues.push(`${full}: give the text for at least one language`);
    return undefined;
  }
  if (texts.length > MAX_TEXT_LANGUAGES) {
    issues.push(`${full}: at most ${MAX_TEXT_LANGUAGES} languages (got ${texts.length})`);
    return undefined;
  }
  return Object.fromEntries(texts);
}

/** Why a Label or Tooltip text is refused, or undefined. */
function shownTextProblem(text: string, max: number): string | undefined {
  const length = [...text].length;
  if (text.trim().length === 0) return 'must contain text other than white space';
  if (length > max) return `must be at most ${max} characters (got ${length})`;
  if (FORBIDDEN_IN_SHOWN_TEXT.test(text)) return 'must be one line without control or bidirectional formatting characters';
  return undefined;
}

/** C0, DEL, C1, line and paragraph separators and the bidirectional formatting characters. */
// eslint-disable-next-line no-control-regex
const FORBIDDEN_IN_SHOWN_TEXT = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * The text of a Label or Tooltip for a reader of `languages`, most wanted first (a signer's language, then the
 * transaction's): per language, the text of the same tag, else of a tag with the same primary subtag (`de-AT` for
 * `de-DE`, `nl` for `nl-BE`); then English; then the first text given. Tags compare without regard to case.
 *
 * @example
 * localisedTextFor({ nl: 'Plaats', en: 'Place' }, ['de-DE', 'nl-NL']); // 'Plaats'
 */
export function localisedTextFor(text: LocalisedText | undefined, languages: readonly string[]): string | undefined {
  if (text === undefined || typeof text === 'string') return text;
  const entries = Object.entries(text);
  const primary = (tag: string): string => tag.toLowerCase().split('-')[0] ?? '';
  for (const wanted of [...languages, 'en']) {
    const exact = entries.find(([tag]) => tag.toLowerCase() === wanted.toLowerCase());
    if (exact) return exact[1];
    const near = entries.find(([tag]) => primary(tag) === primary(wanted));
    if (near) return near[1];
  }
  return entries[0]?.[1];
}

/** The FileMetaData field `<formSet>.<fieldKey>`, if the metadata has it (own keys only: `constructor` is a key too). */
export function fieldSpecOf(metadata: FileMetaData | undefined, formSet: string, fieldKey: string): FieldSpec | undefined {
  const sets = metadata?.FormSets ?? {};
  const set = Object.hasOwn(sets, formSet) ? sets[formSet] : undefined;
  return set !== undefined && Object.hasOwn(set, fieldKey) ? set[fieldKey] : undefined;
}

/**
 * A field's alternate name in the PDF (/TU, the tooltip readers show): its Label and Tooltip for `languages`
 * ({@link localisedTextFor}), joined `Label — Tooltip` when it has both; undefined when it has neither.
 */
export function fieldAlternateName(field: Pick<FieldSpec, 'Label' | 'Tooltip'>, languages: readonly string[]): string | undefined {
  const label = localisedTextFor(field.Label, languages);
  const tooltip = localisedTextFor(field.Tooltip, languages);
  if (label !== undefined && tooltip !== undefined) return `${label} — ${tooltip}`;
  return label ?? tooltip;
}

function checkValue(type: FieldType, value: FieldValueInput, path: string, issues: string[]): void {
  switch (type) {
    case 'Signature':
    case 'Seal':
      issues.push(`${path}: is not allowed on a ${type} field`);
      return;
    case 'Check':
    case 'Radio': {
      if (typeof value === 'boolean') return;
      const exported = String(value);
      if (exported.length === 0) issues.push(`${path}: the export value of a ${type} field must not be empty`);
      else if (exported === 'Off') issues.push(`${path}: "Off" is reserved for the unchecked state; choose another export value`);
      else if (Buffer.byteLength(exported, 'utf8') > MAX_EXPORT_VALUE_BYTES) {
        issues.push(`${path}: the export value of a ${type} field must be at most ${MAX_EXPORT_VALUE_BYTES} bytes in UTF-8`);
      } else if (hasControlCharacter(exported)) issues.push(`${path}: must not contain control characters`);
      return;
    }
    case 'SingleLine':
    case 'Date':
    case 'Number': {
      if (typeof value === 'boolean' || (typeof value === 'number' && type === 'Date')) {
        issues.push(`${path}: a ${type} field takes ${type === 'Date' ? 'a string YYYY-MM-DD' : 'a string or a number'} (got ${describe(value)})`);
        return;
      }
      const problem = textFieldValueProblem(type, fieldValueText(value));
      if (problem) issues.push(`${path}: ${problem}`);
      return;
    }
  }
}

/** A text field's pre-filled `Value` as text: a JSON number written plainly (`123.45`, never `1e-7`). */
export function fieldValueText(value: string | number): string {
  if (typeof value === 'string') return value;
  const plain = String(value);
  return /e/i.test(plain) ? value.toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 }) : plain;
}

/**
 * The signers that fill the PDF's own form fields (Signhost's fillable PDFs, docs/design/fields.md#fillable-pdfs):
 * those whose `FormSets` name the fileId itself while `FormSets` has no such key.
 */
export function fillableSignerIds(metadata: FileMetaData, fileId: string): string[] {
  if (Object.hasOwn(metadata.FormSets ?? {}, fileId)) return [];
  return Object.entries(metadata.Signers ?? {})
    .filter(([, signer]) => signer.FormSets.includes(fileId))
    .map(([id]) => id);
}

/**
 * The export value of a Check or Radio field (docs/design/fields.md#radio-groups): its string (or number) `Value`; a
 * Check without one (or with `true`/`false`) exports `Yes`, a Radio button its field key.
 */
export function exportValueOf(type: 'Check' | 'Radio', fieldKey: string, value: FieldValueInput | undefined): string {
  if (typeof value === 'string' || typeof value === 'number') return fieldValueText(value);
  return type === 'Check' ? 'Yes' : fieldKey;
}

/** Partial name of a formset's radio group when the formset also holds other fields (a space: never a field key). */
const MIXED_RADIO_GROUP = 'Radio group';

/**
 * The PDF field name of a formset's radio group (docs/design/fields.md#radio-groups): `<formset>` when the formset
 * holds only Radio fields; when it holds others too, `<formset>` is their parent field and cannot also be the group, so
 * the group is its kid `<formset>.Radio group`. Undefined when the formset has no Radio field.
 */
export function radioGroupFieldName(formSet: string, fields: Readonly<Record<string, FieldSpec>>): string | undefined {
  const types = Object.values(fields).map((f) => f.Type);
  if (!types.includes('Radio')) return undefined;
  return types.every((t) => t === 'Radio') ? formSet : `${formSet}.${MIXED_RADIO_GROUP}`;
}

/** The Radio fields of one formset are one group: their export values must differ, and at most one is pre-selected. */
function checkRadioGroup(fields: readonly [string, FieldSpec][], setPath: string, issues: string[]): void {
  const seen = new Map<string, string>();
  let selected: string | undefined;
  for (const [key, field] of fields) {
    if (field.Type !== 'Radio') continue;
    const exported = exportValueOf('Radio', key, field.Value);
    const other = seen.get(exported);
    if (other !== undefined) {
      issues.push(`${setPath}.${key}.Value: the radio buttons ${other} and ${key} of formset ${setPath.slice('FormSets.'.length)} have the same export value ${JSON.stringify(exported)}; give each its own`);
    } else seen.set(exported, key);
    if (field.Value === true) {
      if (selected !== undefined) issues.push(`${setPath}.${key}.Value: only one radio button of a group can be pre-selected (${selected} is already true)`);
      else selected = key;
    }
  }
}

/**
 * Checks a value for a SingleLine, Date or Number field (a pre-filled `Value`, or what a signer fills in):
 * SingleLine one line of at most 4096 characters, Date `YYYY-MM-DD` (a real calendar date), Number `42`, `-3.5` or
 * `0,75`. Returns the broken rule, or undefined when the value is fine.
 *
 * @example
 * textFieldValueProblem('Date', '2023-02-29'); // 'must be a date written YYYY-MM-DD (got "2023-02-29")'
 */
export function textFieldValueProblem(type: 'SingleLine' | 'Date' | 'Number', value: string): string | undefined {
  switch (type) {
    case 'SingleLine':
      if ([...value].length > MAX_VALUE) return `must be at most ${MAX_VALUE} characters`;
      if (/[\r\n]/.test(value)) return 'a SingleLine value must not contain line breaks';
      return undefined;
    case 'Date':
      return isIsoDate(value) ? undefined : `must be a date written YYYY-MM-DD (got ${JSON.stringify(value)})`;
    case 'Number':
      return NUMBER_PATTERN.test(value) ? undefined : `must be a number such as 42, -3.5 or 0,75 (got ${JSON.stringify(value)})`;
  }
}

function isIsoDate(value: string): boolean {
  const m = DATE_PATTERN.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (mo < 1 || mo > 12 || d < 1) return false;
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  return d <= (days[mo - 1] ?? 0);
}

function validateLocation(value: unknown, path: string, issues: string[]): Location | undefined {
  const obj = expectObject(value, path, issues);
  if (!obj) return undefined;
  checkProperties(obj, path, LOCATION_PROPS, issues);
  const before = issues.length;
  const loc: Location = {};

  const search = readString(obj, 'Search', path, issues);
  if (search !== undefined) {
    if (search.trim().length === 0) issues.push(`${path}.Search: must contain text other than white space`);
    else loc.Search = search;
  }
  for (const name of ['Top', 'Right', 'Bottom', 'Left'] as const) {
    const n = readNumber(obj, name, path, issues);
    if (n !== undefined) loc[name] = n;
  }
  for (const name of ['Width', 'Height'] as const) {
    const n = readNumber(obj, name, path, issues);
    if (n === undefined) continue;
    if (n <= 0) issues.push(`${path}.${name}: must be greater than 0 (got ${n})`);
    else loc[name] = n;
  }
  const page = readNumber(obj, 'PageNumber', path, issues);
  if (page !== undefined) {
    if (!Number.isSafeInteger(page) || page < 1) issues.push(`${path}.PageNumber: must be an integer of at least 1 (got ${page})`);
    else loc.PageNumber = page;
  }
  if (has(obj, 'Occurence') && has(obj, 'Occurrence')) {
    issues.push(`${path}: give either Occurence or its alias Occurrence, not both`);
  } else {
    const name = has(obj, 'Occurrence') ? 'Occurrence' : 'Occurence';
    const occ = readNumber(obj, name, path, issues);
    if (occ !== undefined) {
      if (!Number.isSafeInteger(occ) || occ < 1) issues.push(`${path}.${name}: must be an integer of at least 1 (got ${occ})`);
      else loc.Occurence = occ;
    }
  }

  if (!has(obj, 'Search') && !has(obj, 'PageNumber')) {
    issues.push(`${path}: PageNumber is required when there is no Search`);
  }
  if (!has(obj, 'Search') && (has(obj, 'Occurence') || has(obj, 'Occurrence'))) {
    issues.push(`${path}: ${has(obj, 'Occurrence') ? 'Occurrence' : 'Occurence'} can only be used with Search`);
  }
  return issues.length > before ? undefined : loc;
}

/** A plain object as JSON.parse makes (of any realm): not bytes, a Map, a Date or a class instance. */
function isObject(value: unknown): value is JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === null || Object.getPrototypeOf(proto) === null;
}

/** Whether `obj` has `key` with a value: `null` counts as absent (docs/design/api.md#tolerant-reader). */
function has(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key) && obj[key] !== null;
}

function expectObject(value: unknown, path: string, issues: string[]): JsonObject | undefined {
  if (!isObject(value)) {
    issues.push(`${path}: must be a JSON object (got ${describe(value)})`);
    return undefined;
  }
  return value;
}

function checkProperties(
  obj: JsonObject,
  path: string,
  allowed: readonly string[],
  issues: string[],
  prefix: string = path + '.',
): void {
  for (const key of Object.keys(obj)) {
    if (allowed.includes(key)) continue;
    const hint = allowed.find((a) => a.toLowerCase() === key.toLowerCase());
    issues.push(
      `${prefix}${key}: unknown property${hint ? ` (did you mean ${hint}?)` : ` (allowed: ${allowed.join(', ')})`}`,
    );
  }
}

function readString(obj: JsonObject, key: string, path: string, issues: string[]): string | undefined {
  if (!has(obj, key)) return undefined;
  const full = path ? `${path}.${key}` : key;
  const v = obj[key];
  if (typeof v !== 'string') issues.push(`${full}: must be a string (got ${describe(v)})`);
  else return v;
  return undefined;
}

function readNumber(obj: JsonObject, key: string, path: string, issues: string[]): number | undefined {
  if (!has(obj, key)) return undefined;
  const full = path ? `${path}.${key}` : key;
  const v = obj[key];
  if (typeof v !== 'number') issues.push(`${full}: must be a number (got ${describe(v)})`);
  else if (!Number.isFinite(v)) issues.push(`${full}: must be a finite number (got ${v})`);
  else return v;
  return undefined;
}

function hasControlCharacter(value: string): boolean {
  return /[\u0000-\u001f\u007f-\u009f]/.test(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) return 'bytes: parse a FileMetaData file with parseFileMetaData';
  if (typeof value === 'object' && value !== null && !isObject(value)) return `a ${value.constructor?.name ?? 'non-plain object'}, not a plain JSON object`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
