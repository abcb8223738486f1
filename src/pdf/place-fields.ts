/**
 * Field placement (ISO 32000-2 §12.7 interactive forms, docs/design/locations.md): adds the AcroForm fields of resolved
 * placements to a PDF in ONE incremental update, so the input's bytes, and any signature over them, stay intact.
 *
 * Naming: a formset is a non-terminal parent field with partial name `<formset>`, and each of its fields a kid with
 * partial name `<fieldKey>`, so the fully qualified name is `<formset>.<fieldKey>` the PDF way (§12.7.4.2: a period
 * in a partial name is not allowed; it separates the levels). A field with one widget is a merged field/widget
 * dictionary; a field whose Location matched several times has one widget kid per match.
 *
 * Signature and Seal become unsigned signature fields (/FT /Sig), Check a check box whose on-state is the export
 * value, the Radio fields of a formset one radio group (`<formset>`, or `<formset>.Radio group` in a formset with other
 * fields) with a widget per button whose on-state is the button's export value, SingleLine/Date/Number text fields (/FT /Tx) with /DA naming the bundled DejaVu Sans (subset; with text
 * fields the subset keeps all of Latin-1 and Latin Extended-A, ~40 KB, so a viewer can show what a signer types). Every widget
 * has /F 4 (print), an appearance drawn upright, and on a page with /Rotate the same angle in /MK /R. The /AP /N
 * state dictionaries of check boxes and radio buttons are direct (docs/design/fields.md#filling).
 */
import { createHash } from 'node:crypto';
import {
  PDFArray,
  PDFDict,
  PDFHexString,
  PDFName,
  PDFNumber,
  PDFRef,
  PDFString,
  type PDFContext,
  type PDFDocument,
  type PDFFont,
  type PDFObject,
} from './pdf-lib.js';
import type { FieldType } from './file-metadata.js';
import { openAcroForm } from './acroform.js';
import { PdfParseError, PlacementError, ValidationError } from '../errors.js';
import {
  checkBoxAppearance,
  radioAppearance,
  rotationMatrix,
  signatureAppearance,
  textFieldAppearance,
  textFieldFontSize,
} from './field-appearance.js';
import { cachingFontkit, loadBundledFont } from './fonts.js';
import { appendPageAnnotation, openPdfForUpdate, writeIncrementalUpdate, type PdfUpdateSession } from './incremental.js';
import type { FieldPlacement } from './resolve-locations.js';
import { readPageGeometry } from './page-boxes.js';
import { assertSamePageGeometry, readerRectToUser, type PageGeometry, type ReaderRect } from './page-geometry.js';

/** Options of {@link placeFields}. */
export interface PlaceFieldsOptions {
  /**
   * The label shown in an unsigned Signature or Seal field (e.g. with the signer's name). Default:
   * `Sign here: <signer ids>` (`Sign here` without signers) and `Seal`.
   */
  label?: (placement: FieldPlacement) => string;
  /**
   * The field's alternate name (/TU), which readers show as its tooltip and screen readers announce: e.g. the
   * FileMetaData field's Label and Tooltip ({@link fieldAlternateName}). Asked with the field's first placement;
   * undefined keeps the default (a Signature or Seal field's label, a Date or Number field's format). A radio group
   * gets none: one PDF field holds all of its buttons.
   */
  alternateName?: (placement: FieldPlacement) => string | undefined;
  /**
   * How many pages the document had when the placements were resolved (e.g. `index.pages.length`). When pdf-lib
   * reads another number, the file is damaged in a way the two parsers see differently: PdfParseError
   * `PDF_PAGE_COUNT_MISMATCH` instead of placing fields on the wrong pages.
   */
  pageCount?: number;
  /**
   * The geometry of every page as the placements were resolved against it (`ResolvedPlacements.pages`, or
   * `index.pages` of a text index). Implies `pageCount`. Each page that gets a widget must read the same to pdf-lib
   * (visible box and /Rotate): a file the two parsers read differently fails with PdfParseError
   * `PAGE_GEOMETRY_MISMATCH` instead of getting a field in the wrong place.
   */
  pages?: readonly PageGeometry[];
}

/** One widget of a placed field: page and rectangle in reader coordinates. */
export interface PlacedWidget extends ReaderRect {
  pageNumber: number;
}

/** A field added to the PDF. */
export interface PlacedField {
  /** Fully qualified name, `<formset>.<fieldKey>` (a radio group: see FieldPlacement.field). */
  field: string;
  formSet: string;
  fieldKey: string;
  type: FieldType;
  signerIds: string[];
  value?: string;
  widgets: PlacedWidget[];
}

/** The result of {@link placeFields}. */
export interface PlaceFieldsResult {
  /** The input bytes followed by one incremental update holding the fields. */
  bytes: Uint8Array;
  fields: PlacedField[];
}

/**
 * Loads fontkit and parses the font of field labels and text fields, as placing the fields would (cachingFontkit keeps
 * it), so that a caller with idle time can take that cost out of the placement.
 */
export async function loadFieldFont(): Promise<void> {
  // A short layout reads the tables (cmap, metrics, substitutions) every later one needs.
  cachingFontkit.create(await loadBundledFont('regular')).layout('Sign here');
}

const FONT_KEY = 'PaDejaVu';
const ZADB_KEY = 'ZaDb';
/** Glyphs kept in the font subset whenever there is a text field, so a signer can type any Latin-1/Latin-A text. */
const TEXT_FIELD_CHARSET = charRange(0x20, 0x7e) + charRange(0xa0, 0x17f) + '€…–—‘’“”';

/**
 * Adds a field per distinct `placement.field` (a widget per placement) to `pdf`, keeping existing AcroForm fields,
 * and returns the new bytes (the input is an exact prefix) with what was placed. Never calls pdf-lib's `save()`.
 *
 * @throws PdfParseError when `pdf` is not a usable PDF, has another page count than `options.pageCount`
 *   (`PDF_PAGE_COUNT_MISMATCH`) or a page reads otherwise than in `options.pages` (`PAGE_GEOMETRY_MISMATCH`);
 *   ValidationError `INVALID_PLACEMENT` for a placement that
 *   is not well-formed (page out of range, empty size, a name with a period, two types for one name);
 *   PlacementError `FIELD_NAME_TAKEN` when the PDF already has a field of that name.
 * @example
 * const { bytes, fields } = await placeFields(pdf, resolveLocations(index, metadata));
 */
export async function placeFields(
  pdf: Uint8Array,
  placements: readonly FieldPlacement[],
  options: PlaceFieldsOptions = {},
): Promise<PlaceFieldsResult> {
  return placeFieldsInSession(await openPdfForUpdate(pdf), placements, options);
}

/**
 * {@link placeFields} on a document already opened with `openPdfForUpdate` and not changed since (placeFieldsFromMetadata
 * opens it while worker threads extract the text). Also loads the bundled font, unless already loaded
 * ({@link loadFieldFont}).
 */
export async function placeFieldsInSession(
  session: PdfUpdateSession,
  placements: readonly FieldPlacement[],
  options: PlaceFieldsOptions = {},
): Promise<PlaceFieldsResult> {
  const pdf = session.original;
  const doc = session.doc;
  const pages = doc.getPages();
  assertPageCount(pages.length, options);
  // Fields the PDF already has (fillable PDFs) are filled when signing, not placed.
  const fields = groupPlacements(placements.filter((p) => p.existing !== true), pages.length);
  if (fields.length === 0) return { bytes: pdf.slice(), fields: [] };

  const labelOf = options.label ?? defaultFieldLabel;
  const needsFont = fields.some((f) => f.type !== 'Check' && f.type !== 'Radio');
  const hasText = fields.some((f) => f.type === 'SingleLine' || f.type === 'Date' || f.type === 'Number');
  const labels = new Map<FieldPlacement, string>();
  for (const f of fields) {
    if (f.type === 'Signature' || f.type === 'Seal') for (const p of f.placements) labels.set(p, labelOf(p));
  }
  let font: PDFFont | undefined;
  if (needsFont) {
    doc.registerFontkit(cachingFontkit);
    // A subset's name carries a 6-letter tag; derive it from the text shown so the output is deterministic.
    const shown = [...labels.values(), ...fields.map((f) => f.value ?? ''), hasText ? TEXT_FIELD_CHARSET : ''].join('\u0000');
    font = await doc.embedFont(await loadBundledFont('regular'), {
      subset: true,
      customName: `${subsetTag(shown)}+DejaVuSans`,
    });
    if (hasText) font.encodeText(TEXT_FIELD_CHARSET);
  }

  const ctx = doc.context;
  const { form: acroForm, fields: fieldList } = openAcroForm(session);
  const fontResources = childDict(session, childDict(session, acroForm, 'DR'), 'Font');
  let fontKey = FONT_KEY;
  if (font) {
    for (let i = 1; fontResources.has(PDFName.of(fontKey)); i++) fontKey = `${FONT_KEY}${i}`;
    fontResources.set(PDFName.of(fontKey), font.ref);
  }
  if (fields.some((f) => f.type === 'Check' || f.type === 'Radio') && !fontResources.has(PDFName.of(ZADB_KEY))) {
    fontResources.set(PDFName.of(ZADB_KEY), ctx.obj({ Type: 'Font', Subtype: 'Type1', BaseFont: 'ZapfDingbats' }));
  }
  if (fields.some((f) => f.type === 'Signature' || f.type === 'Seal')) {
    const flags = acroForm.lookupMaybe(PDFName.of('SigFlags'), PDFNumber)?.asNumber() ?? 0;
    acroForm.set(PDFName.of('SigFlags'), PDFNumber.of(flags | 1)); // SignaturesExist
  }

  const geometries = new Map<number, PageGeometry>();
  const geometryOf = (n: number): PageGeometry => {
    let geo = geometries.get(n);
    if (!geo) {
      geo = readPageGeometry(pages[n - 1]!, n);
      const expected = options.pages?.[n - 1];
      if (expected !== undefined) assertSamePageGeometry(geo, expected);
      geometries.set(n, geo);
    }
    return geo;
  };
  const parents = new Map<string, { kids: PDFArray; ref: PDFRef }>();
  const resources = font ? ctx.obj({ Font: { [fontKey]: font.ref } }) : undefined;

  for (const f of fields) {
    const radio = f.type === 'Radio';
    const topLevel = radio && f.field === f.formSet;
    let parent: { kids: PDFArray; ref: PDFRef } | undefined;
    if (topLevel) {
      assertTopLevelFree(ctx, fieldList, f.formSet);
    } else {
      parent = parents.get(f.formSet) ?? openParent(session, fieldList, f.formSet);
      parents.set(f.formSet, parent);
      assertKidFree(ctx, parent.kids, f);
    }

    const partial = topLevel ? f.formSet : f.field.slice(f.formSet.length + 1);
    const fieldDict = ctx.obj({ T: PDFString.of(partial), ...(parent ? { Parent: parent.ref } : {}) }) as PDFDict;
    const widgets: PDFDict[] = f.placements.map((p) => {
      const geo = geometryOf(p.pageNumber);
      const user = readerRectToUser(geo, p);
      const widget = ctx.obj({
        Type: 'Annot',
        Subtype: 'Widget',
        Rect: [user.x, user.y, user.x + user.width, user.y + user.height].map(roundCoordinate),
        P: pages[p.pageNumber - 1]!.ref,
        F: 4,
      }) as PDFDict;
      const form = (content: string): PDFRef =>
        ctx.register(
          ctx.flateStream(content, {
            Type: 'XObject',
            Subtype: 'Form',
            BBox: [0, 0, p.width, p.height],
            Matrix: rotationMatrix(geo.rotation),
            ...(resources && content.includes(`/${fontKey} `) ? { Resources: resources } : {}),
          }),
        );
      const mk = ctx.obj({}) as PDFDict;
      if (geo.rotation !== 0) mk.set(PDFName.of('R'), PDFNumber.of(geo.rotation));
      widget.set(PDFName.of('MK'), mk);
      if (f.type === 'Signature' || f.type === 'Seal') {
        const label = labels.get(p) ?? '';
        widget.set(PDFName.of('AP'), ctx.obj({ N: form(signatureAppearance(font!, fontKey, p.width, p.height, label)) }));
      } else if (f.type === 'Check' || radio) {
        const draw = radio ? radioAppearance : checkBoxAppearance;
        const onState = exportName(p.value);
        const normal = ctx.obj({}) as PDFDict;
        normal.set(onState, form(draw(p.width, p.height, true)));
        normal.set(PDFName.of('Off'), form(draw(p.width, p.height, false)));
        // The state dictionary stays direct: poppler (Evince, Okular, pdftoppm) takes an indirect /N for the stream
        // itself and draws nothing.
        widget.set(PDFName.of('AP'), ctx.obj({ N: normal }));
        widget.set(PDFName.of('AS'), p.checked === true ? onState : PDFName.of('Off'));
        mk.set(PDFName.of('CA'), PDFString.of(radio ? 'l' : '4')); // ZapfDingbats dot / check mark, for viewers that redraw
      } else {
        const size = textFieldFontSize(p.height);
        const content = textFieldAppearance(font!, fontKey, p.width, p.height, size, f.value);
        widget.set(PDFName.of('AP'), ctx.obj({ N: form(content) }));
      }
      return widget;
    });

    const alternate = f.type === 'Radio' ? undefined : options.alternateName?.(f.placements[0]!);
    describeField(fieldDict, f, fontKey, labels.get(f.placements[0]!), alternate);
    let fieldRef: PDFRef;
    if (widgets.length === 1 && !radio) {
      for (const [key, value] of widgets[0]!.entries()) fieldDict.set(key, value);
      fieldRef = ctx.register(fieldDict);
      appendPageAnnotation(session, pages[f.placements[0]!.pageNumber - 1]!.ref, fieldRef);
    } else {
      fieldRef = ctx.register(fieldDict);
      const kids = widgets.map((widget, i) => {
        widget.set(PDFName.of('Parent'), fieldRef);
        const ref = ctx.register(widget);
        appendPageAnnotation(session, pages[f.placements[i]!.pageNumber - 1]!.ref, ref);
        return ref;
      });
      fieldDict.set(PDFName.of('Kids'), ctx.obj(kids));
    }
    if (parent) parent.kids.push(fieldRef);
    else fieldList.push(fieldRef);
  }

  if (font) await font.embed();
  const { bytes } = writeIncrementalUpdate(session);
  return {
    bytes,
    fields: fields.map((f) => {
      const placed: PlacedField = {
        field: f.field,
        formSet: f.formSet,
        fieldKey: f.fieldKey,
        type: f.type,
        signerIds: [...f.signerIds],
        widgets: f.placements.map(({ pageNumber, left, top, width, height }) => ({ pageNumber, left, top, width, height })),
      };
      if (f.value !== undefined) placed.value = f.value;
      return placed;
    }),
  };
}

/**
 * What {@link placeFields} checks before it writes, on a document already open and without changing it: the page
 * count, that the placements are well-formed, the geometry of each page that gets a widget, and that the PDF has no
 * field of a name to be added. For a caller that resolves now and places later (the service: upload, then start).
 *
 * @throws as placeFields.
 */
export function checkPlacements(
  doc: PDFDocument,
  placements: readonly FieldPlacement[],
  options: Pick<PlaceFieldsOptions, 'pageCount' | 'pages'> = {},
): void {
  const pages = doc.getPages();
  assertPageCount(pages.length, options);
  const fields = groupPlacements(placements.filter((p) => p.existing !== true), pages.length);
  if (options.pages) {
    for (const n of new Set(fields.flatMap((f) => f.placements.map((p) => p.pageNumber)))) {
      const expected = options.pages[n - 1];
      if (expected !== undefined) assertSamePageGeometry(readPageGeometry(pages[n - 1]!, n), expected);
    }
  }
  const ctx = doc.context;
  const acroForm = doc.catalog.lookup(PDFName.of('AcroForm'));
  const fieldList = acroForm instanceof PDFDict ? acroForm.lookup(PDFName.of('Fields')) : undefined;
  if (!(fieldList instanceof PDFArray)) return;
  for (const f of fields) {
    if (f.type === 'Radio' && f.field === f.formSet) {
      assertTopLevelFree(ctx, fieldList, f.formSet);
      continue;
    }
    const kids = existingParent(ctx, fieldList, f.formSet)?.dict.lookup(PDFName.of('Kids'));
    if (kids instanceof PDFArray) assertKidFree(ctx, kids, f);
  }
}

function assertPageCount(actual: number, options: Pick<PlaceFieldsOptions, 'pageCount' | 'pages'>): void {
  const expected = options.pages?.length ?? options.pageCount;
  if (expected !== undefined && expected !== actual) {
    throw new PdfParseError(
      'PDF_PAGE_COUNT_MISMATCH',
      `The PDF is damaged: its page tree has ${actual} page${actual === 1 ? '' : 's'} for one reader and ` +
        `${expected} for another. Repair it (e.g. save it again from a PDF editor) and upload it again.`,
    );
  }
}

/** The field-level entries: type, flags, value, default appearance, tooltip (/TU: `alternate`, else a default). */
function describeField(dict: PDFDict, f: FieldGroup, fontKey: string, label: string | undefined, alternate: string | undefined): void {
  const set = (key: string, value: PDFObject): void => dict.set(PDFName.of(key), value);
  const tooltip = (fallback: string | undefined): void => {
    const text = alternate ?? fallback;
    if (text) set('TU', PDFHexString.fromText(text));
  };
  switch (f.type) {
    case 'Signature':
    case 'Seal':
      set('FT', PDFName.of('Sig'));
      tooltip(label);
      return;
    case 'Check': {
      tooltip(undefined);
      set('FT', PDFName.of('Btn'));
      set('Ff', PDFNumber.of(0));
      const on = f.placements[0]!;
      set('V', on.checked === true ? exportName(on.value) : PDFName.of('Off'));
      set('DA', PDFString.of(`/${ZADB_KEY} 0 Tf 0 g`));
      return;
    }
    case 'Radio': {
      set('FT', PDFName.of('Btn'));
      set('Ff', PDFNumber.of(RADIO_FLAGS));
      const selected = f.placements.find((p) => p.checked === true);
      set('V', selected ? exportName(selected.value) : PDFName.of('Off'));
      set('DA', PDFString.of(`/${ZADB_KEY} 0 Tf 0 g`));
      return;
    }
    case 'SingleLine':
    case 'Date':
    case 'Number': {
      set('FT', PDFName.of('Tx'));
      const size = textFieldFontSize(Math.min(...f.placements.map((p) => p.height)));
      set('DA', PDFString.of(`/${fontKey} ${size} Tf 0 g`));
      if (f.value !== undefined) set('V', PDFHexString.fromText(f.value));
      // A Date field's tooltip keeps the format the field takes.
      if (f.type === 'Date') set('TU', PDFHexString.fromText(alternate !== undefined ? `${alternate} (YYYY-MM-DD)` : 'Date (YYYY-MM-DD)'));
      else tooltip(f.type === 'Number' ? 'Number' : undefined);
      return;
    }
  }
}

/** /Ff of a radio group: Radio (bit 16) and NoToggleToOff (bit 15), ISO 32000-2 Table 229. */
const RADIO_FLAGS = (1 << 15) | (1 << 14);

/** The label of an unsigned Signature or Seal field when the caller gives none. */
export function defaultFieldLabel(p: FieldPlacement): string {
  if (p.type === 'Seal') return 'Seal';
  return p.signerIds.length > 0 ? `Sign here: ${p.signerIds.join(', ')}` : 'Sign here';
}

/** A check box's on-state name: the export value as UTF-8 bytes (PDF 2.0 names are UTF-8), default `Yes`. */
function exportName(value: string | undefined): PDFName {
  const bytes = new TextEncoder().encode(value ?? 'Yes');
  return PDFName.of(String.fromCharCode(...bytes));
}

function subsetTag(text: string): string {
  const digest = createHash('sha256').update(text).digest();
  let tag = '';
  for (let i = 0; i < 6; i++) tag += String.fromCharCode(0x41 + ((digest[i] ?? 0) % 26));
  return tag;
}

function charRange(from: number, to: number): string {
  let s = '';
  for (let c = from; c <= to; c++) s += String.fromCharCode(c);
  return s;
}

interface FieldGroup {
  field: string;
  formSet: string;
  fieldKey: string;
  type: FieldType;
  value?: string;
  signerIds: string[];
  placements: FieldPlacement[];
}

/** Groups placements by field name, checking each is well-formed. Keeps first-seen order. */
function groupPlacements(placements: readonly FieldPlacement[], pageCount: number): FieldGroup[] {
  const issues: string[] = [];
  const groups = new Map<string, FieldGroup>();
  placements.forEach((p, i) => {
    const at = `placements[${i}] (${p.field})`;
    const before = issues.length;
    for (const [what, name] of [['formSet', p.formSet], ['fieldKey', p.fieldKey]] as const) {
      if (typeof name !== 'string' || name.length === 0 || name.includes('.')) {
        issues.push(`${at}: ${what} ${JSON.stringify(name)} must be a non-empty name without a period`);
      }
    }
    if (p.type === 'Radio') {
      if (p.field !== p.formSet && !(p.field.startsWith(`${p.formSet}.`) && !p.field.slice(p.formSet.length + 1).includes('.'))) {
        issues.push(`${at}: a radio button's field must be its group, "${p.formSet}" or "${p.formSet}.<group>"`);
      }
    } else if (p.field !== `${p.formSet}.${p.fieldKey}`) issues.push(`${at}: field must be "${p.formSet}.${p.fieldKey}"`);
    if (!Number.isSafeInteger(p.pageNumber) || p.pageNumber < 1 || p.pageNumber > pageCount) {
      issues.push(`${at}: pageNumber ${p.pageNumber} is not a page of this ${pageCount}-page document`);
    }
    for (const key of ['left', 'top', 'width', 'height'] as const) {
      if (!Number.isFinite(p[key])) issues.push(`${at}: ${key} must be a finite number (got ${p[key]})`);
    }
    if (!(p.width > 0) || !(p.height > 0)) issues.push(`${at}: width and height must be greater than 0`);
    if (issues.length > before) return;
    const group = groups.get(p.field);
    if (!group) {
      const g: FieldGroup = { field: p.field, formSet: p.formSet, fieldKey: p.fieldKey, type: p.type, signerIds: [...p.signerIds], placements: [p] };
      if (p.value !== undefined) g.value = p.value;
      groups.set(p.field, g);
    } else if (group.type !== p.type || (p.type !== 'Radio' && (group.value !== p.value || group.placements[0]!.checked !== p.checked))) {
      issues.push(`${at}: the field already has type ${group.type} and value ${JSON.stringify(group.value)}; one field has one type and value`);
    } else if (p.type === 'Radio' && p.checked === true && group.placements.some((q) => q.checked === true && q.value !== p.value)) {
      issues.push(`${at}: another button of radio group ${p.field} is already selected; select at most one`);
    } else {
      group.placements.push(p);
    }
  });
  if (issues.length > 0) throw new ValidationError(issues, 'INVALID_PLACEMENT');
  return [...groups.values()];
}

/**
 * `parent[key]` as a dictionary, created (direct) when missing. `parent` must already be written in the update;
 * an indirect child is marked modified here.
 */
function childDict(session: PdfUpdateSession, parent: PDFDict, key: string): PDFDict {
  const ctx = session.doc.context;
  const raw = parent.get(PDFName.of(key));
  if (raw instanceof PDFRef) {
    const value = ctx.lookup(raw);
    if (value instanceof PDFDict) {
      session.markModified(raw);
      return value;
    }
  } else if (raw instanceof PDFDict) {
    return raw;
  }
  const dict = ctx.obj({}) as PDFDict;
  parent.set(PDFName.of(key), dict);
  return dict;
}

/** Like {@link childDict} for an array. */
function childArray(session: PdfUpdateSession, parent: PDFDict, key: string): PDFArray {
  const ctx = session.doc.context;
  const raw = parent.get(PDFName.of(key));
  if (raw instanceof PDFRef) {
    const value = ctx.lookup(raw);
    if (value instanceof PDFArray) {
      session.markModified(raw);
      return value;
    }
  } else if (raw instanceof PDFArray) {
    return raw;
  }
  const array = ctx.obj([]);
  parent.set(PDFName.of(key), array);
  return array;
}

function partialName(dict: PDFDict): string | undefined {
  const t = dict.lookup(PDFName.of('T'));
  return t instanceof PDFString || t instanceof PDFHexString ? t.decodeText() : undefined;
}

/** The formset's parent field: an existing non-terminal top-level field of that name, or a new one. */
function openParent(session: PdfUpdateSession, fieldList: PDFArray, formSet: string): { kids: PDFArray; ref: PDFRef } {
  const ctx = session.doc.context;
  const existing = existingParent(ctx, fieldList, formSet);
  if (existing) {
    session.markModified(existing.ref);
    return { kids: childArray(session, existing.dict, 'Kids'), ref: existing.ref };
  }
  const kids = ctx.obj([]);
  const ref = ctx.register(ctx.obj({ T: PDFString.of(formSet), Kids: kids }));
  fieldList.push(ref);
  return { kids, ref };
}

/**
 * The PDF's non-terminal top-level field named `formSet`, or undefined.
 *
 * @throws PlacementError `FIELD_NAME_TAKEN` when the PDF has a terminal field of that name.
 */
function existingParent(ctx: PDFContext, fieldList: PDFArray, formSet: string): { ref: PDFRef; dict: PDFDict } | undefined {
  for (let i = 0; i < fieldList.size(); i++) {
    const ref = fieldList.get(i);
    const dict = ctx.lookup(ref);
    if (!(ref instanceof PDFRef) || !(dict instanceof PDFDict) || partialName(dict) !== formSet) continue;
    const kids = dict.lookup(PDFName.of('Kids'));
    const terminal = dict.has(PDFName.of('FT')) || !(kids instanceof PDFArray) || isWidgetArray(ctx, kids);
    if (terminal) {
      throw new PlacementError(
        'FIELD_NAME_TAKEN',
        `The PDF already has a field named "${formSet}", so formset "${formSet}" cannot be added: rename the formset`,
      );
    }
    return { ref, dict };
  }
  return undefined;
}

/** A formset's radio group is a top-level field `<formset>`: the PDF must not have a top-level field of that name. */
function assertTopLevelFree(ctx: PDFContext, fieldList: PDFArray, name: string): void {
  for (let i = 0; i < fieldList.size(); i++) {
    const dict = ctx.lookup(fieldList.get(i));
    if (dict instanceof PDFDict && partialName(dict) === name) {
      throw new PlacementError(
        'FIELD_NAME_TAKEN',
        `The PDF already has a field named "${name}", so the radio group of formset "${name}" cannot be added: rename the formset`,
      );
    }
  }
}

function isWidgetArray(ctx: PDFContext, kids: PDFArray): boolean {
  const first = kids.size() > 0 ? ctx.lookup(kids.get(0)) : undefined;
  return first instanceof PDFDict && !first.has(PDFName.of('T'));
}

function assertKidFree(ctx: PDFContext, kids: PDFArray, f: FieldGroup): void {
  for (let i = 0; i < kids.size(); i++) {
    const kid = ctx.lookup(kids.get(i));
    if (kid instanceof PDFDict && `${f.formSet}.${partialName(kid)}` === f.field) {
      throw new PlacementError(
        'FIELD_NAME_TAKEN',
        `The PDF already has a field named "${f.field}": use another field key or start from the PDF without it`,
      );
    }
  }
}

/**
 * A /Rect coordinate to a thousandth of a point: computed positions can be subnormal (5e-324 × a page size), which
 * pdf-lib writes as hundreds of digits that readers do not take as a number.
 */
function roundCoordinate(value: number): number {
  return Math.round(value * 1000) / 1000 || 0;
}
