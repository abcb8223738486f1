/**
 * Judges what each incremental update changed, so that a verifier can say whether the revisions after a
 * signature contain only changes a signed document may receive (ISO 32000-2 §12.8.2.2 DocMDP P=2 in spirit, and
 * ETSI EN 319 142-1 §5.4 for /DSS and document time-stamps): new signatures in signature fields, form fill values,
 * widgets and appearances of form fields, /DSS and document time-stamps. Anything else that touches an object
 * existing before the update — page content, resources, the page tree, a signature dictionary — is disallowed.
 *
 * New objects are harmless on their own: they only matter through the existing objects that start referencing
 * them, and those are judged here. Each section is compared against the state before it (all earlier sections
 * merged), so the whole file is parsed once whatever the number of revisions.
 */
import { isSignatureDictionary, walkFieldTree, type FieldNode } from '../pdf/acroform.js';
import { PDFArray, PDFDict, PDFHexString, PDFName, PDFNull, PDFNumber, PDFRef, PDFStream, PDFString, type PDFObject } from '../pdf/pdf-lib.js';
import { changedKeys, samePdfValue } from './pdf-value-equality.js';
import type { PdfRevision, RevisionSection } from '../pdf/revisions.js';

/** Looks objects up by object number. */
export interface ObjectLookup {
  get(objectNumber: number): PDFObject | undefined;
  has(objectNumber: number): boolean;
}

/** The objects of a document at one revision, keyed by object number, with the trailer's /Root and /Info. */
export interface ObjectState {
  readonly objects: ObjectLookup;
  readonly root: PDFRef | undefined;
  readonly info: PDFRef | undefined;
  /** The newest trailer (for an xref stream: its dictionary), whose private entries reach objects too. */
  readonly trailer?: PDFDict;
}

/**
 * Kinds of change that a signer's permissions may allow (ISO 32000-2 §12.8.2.2 DocMDP levels, ETSI EN 319 142-1
 * §5.4 for /DSS and document time-stamps); the per-signature policy (change-policy.ts) decides which are allowed
 * after which signature. Everything else an update does is refused outright (`disallowed`).
 */
export type ChangeKind =
  /** /DSS entries, developer extensions, the catalog /Version. */
  | 'dss'
  /** /AcroForm bookkeeping a signature needs (/SigFlags, the /AcroForm itself). */
  | 'form-bookkeeping'
  /** /Info entries no viewer shows (/ModDate, /Producer). */
  | 'info-bookkeeping'
  /** XMP metadata and other /Info entries. */
  | 'metadata'
  /** Filling an existing form field: its /V, /AS, appearance and the like. */
  | 'fill'
  /** Signing an existing empty signature field. */
  | 'sign'
  /** A new signature field (with its widget). */
  | 'new-signature-field'
  /** A new annotation other than a widget. */
  | 'annotation';

/** One change of a kind a policy may allow, with what it touched. */
export interface ClassifiedChange {
  readonly kind: ChangeKind;
  readonly message: string;
  /** The object changed or added. */
  readonly object?: number;
  /** Fully qualified name of the form field the change touches. */
  readonly field?: string;
  /** For `new-signature-field`: whether some widget of it has an area and is not hidden. */
  readonly visible?: boolean;
  /** For `new-signature-field`: what signs it in this very revision (its /V's /ByteRange ends with the revision). */
  readonly signedHere?: 'signature' | 'document-timestamp';
}

/** What one incremental update changed: changes a policy may allow, and changes refused whatever the policy. */
export interface RevisionChanges {
  /** Index of the revision (1 = first incremental update). */
  readonly revision: number;
  readonly changes: readonly ClassifiedChange[];
  /** Refusals, each starting with the name of its rule in brackets, e.g. `[page-content] …`. */
  readonly disallowed: readonly string[];
  readonly warnings: readonly string[];
}

type Role =
  | 'catalog'
  | 'info'
  | 'pages'
  | 'page'
  | 'page-annots'
  | 'rendered'
  | 'acroform'
  | 'fields'
  | 'field'
  | 'widget'
  | 'appearance'
  | 'signature'
  | 'signed-field'
  | 'dss'
  | 'dss-container'
  | 'dss-entry'
  | 'extensions'
  | 'metadata'
  | 'other';

/** The roles of the objects of one state, and for objects a viewer renders, what renders them. */
interface Roles {
  readonly byObject: Map<number, Set<Role>>;
  /** For `rendered` objects: the page or annotation that draws them (for the message). */
  readonly renderedBy: Map<number, string>;
  /** For `other` objects: the catalog or trailer entry they are reachable from (for the message). */
  readonly otherBy: Map<number, string>;
  /** Unsigned fields' appearance streams and dictionaries: the widgets that use each. */
  readonly appearanceUsers: Map<number, Set<number>>;
  /** Form fields and widgets: the fully qualified name of the field they belong to. */
  readonly fieldName: Map<number, string>;
  /** Widgets (and fields): the object of the terminal field they belong to (itself for a merged field-widget). */
  readonly fieldOwner: Map<number, number>;
  /** Form fields: their field type, inherited. */
  readonly fieldType: Map<number, string>;
}

/** Resolves `value` (a reference or a direct object) in `state`. */
export function resolveIn(state: ObjectState, value: PDFObject | undefined): PDFObject | undefined {
  let current = value;
  for (let i = 0; i < 8 && current instanceof PDFRef; i++) current = state.objects.get(current.objectNumber);
  return current instanceof PDFRef ? undefined : current;
}

function dictOf(state: ObjectState, value: PDFObject | undefined): PDFDict | undefined {
  const resolved = resolveIn(state, value);
  if (resolved instanceof PDFDict) return resolved;
  if (resolved instanceof PDFStream) return resolved.dict;
  return undefined;
}

function nameOf(dict: PDFDict | undefined, key: string): string | undefined {
  const value = dict?.get(PDFName.of(key));
  return value instanceof PDFName ? value.decodeText() : undefined;
}

function text(value: PDFObject | undefined): string {
  if (value === undefined) return '';
  if (value instanceof PDFStream) return `${value.dict.toString()}stream:${Buffer.from(value.getContents()).toString('latin1')}`;
  return value.toString();
}

/** A field's partial name /T, decoded. */
function partialName(dict: PDFDict): string | undefined {
  const t = dict.get(PDFName.of('T'));
  if (t instanceof PDFString || t instanceof PDFHexString) {
    try {
      return t.decodeText();
    } catch {
      return Buffer.from(t.asBytes()).toString('latin1');
    }
  }
  return undefined;
}

function refNumber(value: PDFObject | undefined): number | undefined {
  return value instanceof PDFRef ? value.objectNumber : undefined;
}

const EXPLAINED_CATALOG_KEYS = new Set(['Type', 'Pages', 'AcroForm', 'DSS', 'Metadata', 'Extensions', 'Version']);
const EXPLAINED_TRAILER_KEYS = new Set(['Root', 'Info', 'ID', 'Size', 'Prev', 'Encrypt', 'XRefStm', 'Type', 'W', 'Index', 'Length', 'Filter', 'DecodeParms']);

/** Keys a render walk does not follow: back-links to parents and pages, and links that only navigate. */
// /Data: a FieldMDP signature reference names the catalog, which is judged by its own rules.
const NOT_RENDERED_KEYS = new Set(['Parent', 'P', 'Dest', 'D', 'A', 'AA', 'Next', 'Prev', 'First', 'Last', 'StructParent', 'StructParents', 'IRT', 'Popup', 'Data']);

/**
 * Marks the roles of the objects of `state`. Everything a viewer renders is followed transitively: page contents,
 * page and page-tree resources (nested form XObjects, patterns, shadings, fonts, …), non-widget annotations and
 * the resources of every appearance stream. Those objects may not change after signing, whatever other role
 * (an unsigned field's appearance, a /DSS entry) they also have.
 */
function computeRoles(state: ObjectState): Roles {
  const byObject = new Map<number, Set<Role>>();
  const renderedBy = new Map<number, string>();
  const appearanceUsers = new Map<number, Set<number>>();
  const mark = (value: PDFObject | undefined, role: Role): void => {
    const n = refNumber(value);
    if (n === undefined) return;
    let set = byObject.get(n);
    if (!set) byObject.set(n, (set = new Set()));
    set.add(role);
  };
  const otherBy = new Map<number, string>();
  const fieldName = new Map<number, string>();
  const fieldOwner = new Map<number, number>();
  const fieldType = new Map<number, string>();
  const roles: Roles = { byObject, renderedBy, otherBy, appearanceUsers, fieldName, fieldOwner, fieldType };
  mark(state.root, 'catalog');
  mark(state.info, 'info');
  const catalog = dictOf(state, state.root);
  if (!catalog) return roles;
  mark(catalog.get(PDFName.of('Metadata')), 'metadata');
  mark(catalog.get(PDFName.of('Extensions')), 'extensions');
  const extensions = dictOf(state, catalog.get(PDFName.of('Extensions')));
  for (const [, value] of extensions?.entries() ?? []) mark(value, 'extensions');

  const isPageNode = (dict: PDFDict | undefined): boolean => {
    const type = nameOf(dict, 'Type');
    return type === 'Page' || type === 'Pages';
  };
  // One walk over everything reachable from the rendered roots; objects already walked are not walked again.
  const walked = new Map<Role, Set<number>>();
  const walkRendered = (value: PDFObject | undefined, origin: string, role: Role = 'rendered', depth = 0): void => {
    if (value === undefined || depth > 256) return;
    const n = refNumber(value);
    if (n !== undefined) {
      const resolved = resolveIn(state, value);
      const dict = resolved instanceof PDFDict ? resolved : resolved instanceof PDFStream ? resolved.dict : undefined;
      // Pages, the catalog and /Info have rules of their own: a walk that reaches them back does not take them over.
      if (isPageNode(dict) || n === state.root?.objectNumber || n === state.info?.objectNumber) return;
      // The structure that is not rendered stops at annotations: a tagged PDF's structure tree reaches widgets.
      if (role === 'other' && (nameOf(dict, 'Type') === 'Annot' || nameOf(dict, 'Subtype') === 'Widget')) return;
      mark(value, role);
      if (role === 'rendered' && !renderedBy.has(n)) renderedBy.set(n, origin);
      if (role === 'other' && !otherBy.has(n)) otherBy.set(n, origin);
      let seen = walked.get(role);
      if (!seen) walked.set(role, (seen = new Set()));
      if (seen.has(n)) return;
      seen.add(n);
      walkRendered(resolved, origin, role, depth + 1);
      return;
    }
    if (value instanceof PDFArray) for (const item of value.asArray()) walkRendered(item, origin, role, depth + 1);
    else if (value instanceof PDFDict || value instanceof PDFStream) {
      const dict = value instanceof PDFStream ? value.dict : value;
      for (const [key, item] of dict.entries()) if (!NOT_RENDERED_KEYS.has(key.decodeText())) walkRendered(item, origin, role, depth + 1);
    }
  };

  /** Marks an appearance (/AP) of a widget: the /AP dictionary and its streams get `role`, what they draw is rendered. */
  const markAppearance = (widget: number | undefined, ap: PDFObject | undefined, role: 'appearance' | 'signed-field', origin: string): void => {
    const use = (value: PDFObject | undefined): void => {
      mark(value, role);
      const n = refNumber(value);
      if (n !== undefined && widget !== undefined && role === 'appearance') {
        let users = appearanceUsers.get(n);
        if (!users) appearanceUsers.set(n, (users = new Set()));
        users.add(widget);
      }
    };
    const drawn = (stream: PDFObject | undefined): void => {
      const resolved = resolveIn(state, stream);
      if (!(resolved instanceof PDFStream)) return;
      // What the appearance stream itself draws with: its resources and the like.
      for (const [key, item] of resolved.dict.entries()) {
        if (!NOT_RENDERED_KEYS.has(key.decodeText())) walkRendered(item, origin, role === 'signed-field' ? 'signed-field' : 'rendered');
      }
    };
    use(ap);
    const apDict = resolveIn(state, ap);
    if (!(apDict instanceof PDFDict)) return;
    for (const [, sub] of apDict.entries()) {
      use(sub);
      const subResolved = resolveIn(state, sub);
      if (subResolved instanceof PDFStream) drawn(sub);
      else if (subResolved instanceof PDFDict) {
        for (const [, stream] of subResolved.entries()) {
          use(stream);
          drawn(stream);
        }
      }
    }
  };

  const seenPages = new Set<number>();
  const walkPages = (node: PDFObject | undefined, depth: number): void => {
    const n = refNumber(node);
    if (depth > 64 || (n !== undefined && seenPages.has(n))) return;
    if (n !== undefined) seenPages.add(n);
    const dict = dictOf(state, node);
    if (!dict) return;
    const label = n !== undefined ? `page ${n} 0 R` : 'a page';
    const kids = resolveIn(state, dict.get(PDFName.of('Kids')));
    if (nameOf(dict, 'Type') === 'Pages' || kids instanceof PDFArray) {
      mark(node, 'pages');
      mark(dict.get(PDFName.of('Kids')), 'pages');
      walkRendered(dict.get(PDFName.of('Resources')), `the page tree node ${n ?? '?'} 0 R (inherited /Resources)`);
      if (kids instanceof PDFArray) for (const kid of kids.asArray()) walkPages(kid, depth + 1);
      return;
    }
    mark(node, 'page');
    for (const key of ['Contents', 'Resources', 'Group', 'Thumb', 'BoxColorInfo', 'SeparationInfo', 'VP', 'TransitionEffects']) {
      walkRendered(dict.get(PDFName.of(key)), `${label} (/${key})`);
    }
    mark(dict.get(PDFName.of('Annots')), 'page-annots');
    const annots = resolveIn(state, dict.get(PDFName.of('Annots')));
    if (!(annots instanceof PDFArray)) return;
    for (const annot of annots.asArray()) {
      const annotDict = dictOf(state, annot);
      if (nameOf(annotDict, 'Subtype') === 'Widget') continue; // judged through the form's fields below
      walkRendered(annot, `the /${nameOf(annotDict, 'Subtype') ?? 'unknown'} annotation on ${label}`);
    }
  };
  walkPages(catalog.get(PDFName.of('Pages')), 0);

  const acroForm = catalog.get(PDFName.of('AcroForm'));
  mark(acroForm, 'acroform');
  const acroDict = dictOf(state, acroForm);
  const seenFields = new Set<number>();
  // A signed signature field (and its widgets and their appearances) is part of what its signer signed.
  const signedFields = new Set<FieldNode>();
  const markField = (object: PDFObject, dict: PDFDict, name: string, owner: number | undefined, ft: string | undefined, signed: boolean): void => {
    const n = refNumber(object);
    if (n !== undefined) {
      fieldName.set(n, name);
      if (owner !== undefined) fieldOwner.set(n, owner);
      if (ft !== undefined) fieldType.set(n, ft);
    }
    const isWidget = nameOf(dict, 'Subtype') === 'Widget';
    mark(object, isWidget ? 'widget' : 'field');
    if (isWidget) mark(object, 'field');
    if (signed) mark(object, 'signed-field');
    const label = `the ${signed ? 'signed ' : ''}field ${n ?? '?'} 0 R's appearance`;
    markAppearance(n, dict.get(PDFName.of('AP')), signed ? 'signed-field' : 'appearance', label);
    const value = dict.get(PDFName.of('V'));
    const signature = resolveIn(state, value);
    if (isSignatureDictionary(signature)) {
      mark(value, 'signature');
      // What a signature dictionary references (e.g. /Reference, /Prop_Build) is part of the signature.
      walkRendered(signature, `the signature dictionary ${refNumber(value) ?? '?'} 0 R`, 'signature');
    }
    mark(dict.get(PDFName.of('Kids')), 'fields');
  };
  if (acroDict) {
    mark(acroDict.get(PDFName.of('Fields')), 'fields');
    walkFieldTree(acroDict.get(PDFName.of('Fields')), (object) => resolveIn(state, object), (node) => {
      const n = refNumber(node.object);
      if (n !== undefined && seenFields.has(n)) return;
      if (n !== undefined) seenFields.add(n);
      const value = node.dict.get(PDFName.of('V'));
      const signed = (node.parent !== undefined && signedFields.has(node.parent)) || (node.type === 'Sig' && value !== undefined && !(value === PDFNull));
      if (signed) signedFields.add(node);
      const name = node.name ?? '';
      markField(node.object, node.dict, name, n, node.type, signed);
      // A kid without /T is a widget of this field (also beside field kids, in a damaged tree).
      for (const kid of node.kids) {
        const k = refNumber(kid.object);
        if (kid.dict.has(PDFName.of('T')) || (k !== undefined && seenFields.has(k))) continue;
        if (k !== undefined) seenFields.add(k);
        const kidValue = kid.dict.get(PDFName.of('V'));
        const kidType = nameOf(kid.dict, 'FT') ?? node.type;
        markField(kid.object, kid.dict, name, n, kidType, signed || (kidType === 'Sig' && kidValue !== undefined && !(kidValue === PDFNull)));
      }
    });
  }

  const dss = catalog.get(PDFName.of('DSS'));
  mark(dss, 'dss');
  const dssDict = dictOf(state, dss);
  if (dssDict) {
    for (const key of ['Certs', 'OCSPs', 'CRLs', 'VRI']) {
      const value = dssDict.get(PDFName.of(key));
      mark(value, 'dss-container');
      const resolved = resolveIn(state, value);
      if (resolved instanceof PDFArray) for (const item of resolved.asArray()) walkRendered(item, '/DSS', 'dss-entry');
      else if (resolved instanceof PDFDict) for (const [, item] of resolved.entries()) walkRendered(item, '/DSS /VRI', 'dss-entry');
    }
  }

  // Everything else the catalog and the trailer reach (/Names, /Outlines, /StructTreeRoot, private keys, …): an
  // object reachable from there may not change even when another role (an appearance, /Info) would allow it, since
  // nothing tells what that other use shows (pyHanko's "not all paths" rule).
  for (const [key, value] of catalog.entries()) {
    if (!EXPLAINED_CATALOG_KEYS.has(key.decodeText())) walkRendered(value, `catalog /${key.decodeText()}`, 'other');
  }
  for (const [key, value] of state.trailer?.entries() ?? []) {
    if (!EXPLAINED_TRAILER_KEYS.has(key.decodeText())) walkRendered(value, `trailer /${key.decodeText()}`, 'other');
  }
  return roles;
}

function describe(n: number, object: PDFObject | undefined): string {
  const dict = object instanceof PDFDict ? object : object instanceof PDFStream ? object.dict : undefined;
  const declared = nameOf(dict, 'Type');
  const type = declared === undefined || declared === 'Annot' ? (nameOf(dict, 'Subtype') ?? declared) : declared;
  const kind = object instanceof PDFStream ? 'stream' : object instanceof PDFArray ? 'array' : declared === 'Annot' || type === 'Widget' ? 'annotation' : object instanceof PDFDict ? 'dictionary' : 'object';
  const title = dict?.get(PDFName.of('T'));
  const name = title ? ` ${title.toString()}` : '';
  return `${type ? `/${type} ` : ''}${kind}${name} ${n} 0 R`;
}

const DSS_ARRAYS = new Set(['Certs', 'OCSPs', 'CRLs']);
/** /Info entries no viewer shows: a writer that only updates these changes nothing a reader sees. */
const INFO_BOOKKEEPING = new Set(['ModDate', 'Producer']);
/** Annotation flags that keep an annotation from being shown: Hidden (bit 2), NoView (bit 6). */
const HIDING_FLAGS = 2 | 32;

/** A refusal: the rule that refuses, and what it found. */
interface Refusal {
  readonly rule: string;
  readonly message: string;
}

/** A classified change without its message (the caller words it). */
type Classification = Omit<ClassifiedChange, 'message'>;

type Verdict = Refusal | Classification;

const isRefusal = (v: Verdict): v is Refusal => 'rule' in v;

/** The judge of one update section, given the states before and after it. */
class SectionJudge {
  readonly changes: ClassifiedChange[] = [];
  readonly disallowed: string[] = [];
  readonly warnings: string[] = [];
  private rolesBefore: Roles | undefined;
  private rolesAfter: Roles | undefined;

  constructor(
    private readonly before: ObjectState,
    private readonly after: ObjectState,
    rolesBefore: Roles | undefined,
    private readonly revision: PdfRevision,
  ) {
    this.rolesBefore = rolesBefore;
  }

  allow(kind: ChangeKind, message: string, extra: Omit<Classification, 'kind'> = {}): void {
    this.changes.push({ ...extra, kind, message });
  }

  refuse(rule: string, message: string): void {
    this.disallowed.push(`[${rule}] ${message}`);
  }

  /** The roles in the state after this section, if they were needed (they are the next section's roles before). */
  get computedRolesAfter(): Roles | undefined {
    return this.rolesAfter;
  }

  private get beforeRoles(): Roles {
    return (this.rolesBefore ??= computeRoles(this.before));
  }

  private get afterRoles(): Roles {
    return (this.rolesAfter ??= computeRoles(this.after));
  }

  rolesOf(n: number): Set<Role> {
    return new Set([...(this.beforeRoles.byObject.get(n) ?? []), ...(this.afterRoles.byObject.get(n) ?? [])]);
  }

  private fieldNameOf(n: number): string | undefined {
    return this.afterRoles.fieldName.get(n) ?? this.beforeRoles.fieldName.get(n);
  }

  /** Checks that array `after` keeps every entry of `before`; judges every added entry with `accept`. */
  private checkGrowingArray(label: string, before: PDFObject | undefined, after: PDFObject | undefined, accept: (entry: PDFObject) => Verdict, removedRule = 'entries-removed'): void {
    const oldArray = resolveIn(this.before, before);
    const newArray = resolveIn(this.after, after);
    const oldItems = oldArray instanceof PDFArray ? oldArray.asArray() : [];
    const newItems = newArray instanceof PDFArray ? newArray.asArray() : [];
    const removed = oldItems.filter((o) => !newItems.some((n) => samePdfValue(o, n)));
    if (removed.length > 0) this.refuse(removedRule, `${label}: entries removed (${removed.map(text).join(', ')})`);
    for (const entry of newItems) {
      if (oldItems.some((o) => samePdfValue(o, entry))) continue;
      const verdict = accept(entry);
      if (isRefusal(verdict)) this.refuse(verdict.rule, `${label}: ${verdict.message}`);
      else if (verdict.kind === 'annotation') this.allow('annotation', `${label}: a /${nameOf(dictOf(this.after, entry), 'Subtype') ?? 'unknown'} annotation was added (${text(entry)})`, verdict);
      else this.allow(verdict.kind, `${label}: added ${text(entry)}${refNumber(entry) !== undefined ? ` (${describe(refNumber(entry)!, resolveIn(this.after, entry))})` : ''}`, verdict);
    }
  }

  /** An action (/A, /AA) on an added dictionary: a link or script a signer never saw. */
  private actionOf(dict: PDFDict | undefined, what: string): Refusal | undefined {
    for (const key of ['A', 'AA']) {
      const value = dictOf(this.after, dict?.get(PDFName.of(key)));
      if (value === undefined) continue;
      const type = key === 'A' ? (nameOf(value, 'S') ?? 'unknown') : 'additional';
      return { rule: 'action-added', message: `${what} carries a /${key} (${type}) action` };
    }
    return undefined;
  }

  private isVisible(widget: PDFDict): boolean {
    const flags = resolveIn(this.after, widget.get(PDFName.of('F')));
    if (flags instanceof PDFNumber && (flags.asNumber() & HIDING_FLAGS) !== 0) return false;
    const rect = resolveIn(this.after, widget.get(PDFName.of('Rect')));
    const r = rect instanceof PDFArray ? rect.asArray().map((x) => { const v = resolveIn(this.after, x); return v instanceof PDFNumber ? v.asNumber() : 0; }) : [];
    return r.length === 4 && Math.abs((r[2] ?? 0) - (r[0] ?? 0)) * Math.abs((r[3] ?? 0) - (r[1] ?? 0)) > 0;
  }

  /** The widgets of a field dictionary: itself when it is a merged field-widget, else its kids without /T. */
  private widgetsOf(field: PDFDict): PDFDict[] {
    const widgets: PDFDict[] = nameOf(field, 'Subtype') === 'Widget' ? [field] : [];
    const kids = resolveIn(this.after, field.get(PDFName.of('Kids')));
    for (const kid of kids instanceof PDFArray ? kids.asArray() : []) {
      const d = dictOf(this.after, kid);
      if (d && partialName(d) === undefined) widgets.push(d);
    }
    return widgets;
  }

  /** A signature field added by this update: classified by visibility and by whether this revision signs it. */
  private classifyNewSignatureField(n: number | undefined, field: PDFDict): Verdict {
    const name = n !== undefined ? this.fieldNameOf(n) : partialName(field);
    for (const widget of this.widgetsOf(field)) {
      const action = this.actionOf(widget, `the new signature field ${name ?? '?'}`);
      if (action) return action;
    }
    const visible = this.widgetsOf(field).some((w) => this.isVisible(w));
    let signedHere: ClassifiedChange['signedHere'];
    const value = dictOf(this.after, field.get(PDFName.of('V')));
    const range = resolveIn(this.after, value?.get(PDFName.of('ByteRange')));
    if (value && range instanceof PDFArray && range.size() === 4) {
      const [, , c, d] = range.asArray().map((x) => (x instanceof PDFNumber ? x.asNumber() : NaN));
      const end = (c ?? NaN) + (d ?? NaN);
      if (end >= this.revision.eofEnd && end <= this.revision.end) {
        signedHere = nameOf(value, 'Type') === 'DocTimeStamp' || nameOf(value, 'SubFilter') === 'ETSI.RFC3161' ? 'document-timestamp' : 'signature';
      }
    }
    return { kind: 'new-signature-field', ...(n !== undefined ? { object: n } : {}), ...(name !== undefined ? { field: name } : {}), visible, ...(signedHere ? { signedHere } : {}) };
  }

  /** A field dictionary added to /AcroForm /Fields or to a field's /Kids. */
  private classifyNewField = (entry: PDFObject): Verdict => {
    const dict = dictOf(this.after, entry);
    const n = refNumber(entry);
    if (!dict) return { rule: 'field-tree', message: `added entry ${text(entry)} is not a field dictionary` };
    if (n !== undefined && this.beforeRoles.fieldName.has(n)) return { rule: 'field-tree', message: `the existing field ${describe(n, dict)} was moved in the field tree` };
    const ft = (n !== undefined ? this.afterRoles.fieldType.get(n) : undefined) ?? nameOf(dict, 'FT');
    const name = n !== undefined ? this.fieldNameOf(n) : partialName(dict);
    if (partialName(dict) === undefined) {
      return { rule: 'new-widget', message: `a new widget ${text(entry)} was added to the existing field ${name ?? '?'} (a new widget shows the field a second time, wherever it is placed)` };
    }
    if (ft === 'Sig') return this.classifyNewSignatureField(n, dict);
    return { rule: 'new-form-field', message: `a new /${ft ?? 'untyped'} form field ${name ?? '?'} (${text(entry)}) was added (after signing, only existing fields may be filled)` };
  };

  /** An annotation added to a page's /Annots. */
  private classifyNewAnnotation = (entry: PDFObject): Verdict => {
    const dict = dictOf(this.after, entry);
    const n = refNumber(entry);
    const subtype = nameOf(dict, 'Subtype');
    if (!dict) return { rule: 'annots-entry', message: `added entry ${text(entry)} is not an annotation dictionary` };
    if (subtype !== 'Widget') {
      const action = this.actionOf(dict, `the new /${subtype ?? 'unknown'} annotation ${text(entry)}`);
      if (action) return action;
      if (n !== undefined && this.before.objects.has(n)) return { rule: 'annots-entry', message: `the existing object ${text(entry)} was added as an annotation` };
      return { kind: 'annotation', ...(n !== undefined ? { object: n } : {}) };
    }
    const inForm = n !== undefined && (this.afterRoles.byObject.get(n)?.has('widget') ?? false);
    if (!inForm) return { rule: 'widget-outside-form', message: `widget ${text(entry)} was added that belongs to no form field` };
    const action = this.actionOf(dict, `the new widget ${text(entry)}`);
    if (action) return action;
    const owner = this.afterRoles.fieldOwner.get(n) ?? n;
    const name = this.fieldNameOf(n);
    if (this.beforeRoles.fieldName.has(owner)) {
      if (this.beforeRoles.byObject.get(n)?.has('widget')) {
        return { rule: 'widget-moved', message: `the widget ${n} 0 R of field ${name ?? '?'} was added to another page's annotations` };
      }
      return { rule: 'new-widget', message: `a new widget ${n} 0 R was added to the existing field ${name ?? '?'}` };
    }
    const ownerDict = dictOf(this.after, PDFRef.of(owner));
    const ft = this.afterRoles.fieldType.get(owner);
    if (ft === 'Sig' && ownerDict) return this.classifyNewSignatureField(owner, ownerDict);
    return { rule: 'new-form-field', message: `a widget of the new /${ft ?? 'untyped'} form field ${name ?? '?'} (${n} 0 R) was added` };
  };

  /** An entry added to a /DSS array must be a new stream (certificate, OCSP response, CRL), not an existing object. */
  private acceptDssStream = (entry: PDFObject): Verdict => {
    const n = refNumber(entry);
    if (n === undefined) return { rule: 'dss-structure', message: `added entry ${text(entry)} is not a reference to a stream` };
    if (this.before.objects.has(n) && this.rolesOf(n).size > 0 && !this.rolesOf(n).has('dss-entry')) {
      return { rule: 'dss-structure', message: `added entry ${n} 0 R is an object the document already uses elsewhere` };
    }
    return resolveIn(this.after, entry) instanceof PDFStream ? { kind: 'dss', object: n } : { rule: 'dss-structure', message: `added entry ${n} 0 R is not a stream` };
  };

  judge(n: number, before: PDFObject, after: PDFObject): void {
    const roles = this.rolesOf(n);
    const what = describe(n, after);
    if (roles.has('rendered')) {
      const by = this.beforeRoles.renderedBy.get(n) ?? this.afterRoles.renderedBy.get(n) ?? 'a page';
      this.refuse('page-content', `page content or resources changed: ${what}, which ${by} draws`);
      return;
    }
    if (roles.has('signature')) {
      this.refuse('signature-changed', `an existing signature dictionary (or an object it references) was changed: ${what}`);
      return;
    }
    // Only the state before counts here: the field being signed in this very update is signed only after it.
    if (this.beforeRoles.byObject.get(n)?.has('signed-field')) {
      this.refuse('signed-field-changed', `a signed signature field, its widget or its appearance was changed: ${what}`);
      return;
    }
    if (roles.has('dss-entry')) {
      this.refuse('dss-structure', `an existing /DSS entry was changed (the /DSS may only grow): ${what}`);
      return;
    }
    if (roles.has('pages')) {
      this.refuse('page-tree', `the page tree was changed: ${what}`);
      return;
    }
    if (roles.has('other')) {
      const from = this.beforeRoles.otherBy.get(n) ?? this.afterRoles.otherBy.get(n) ?? 'another entry';
      this.refuse('unexplained-change', `${what} was changed, and it is also reachable from ${from}, which no allowed change covers`);
      return;
    }
    const beforeDict = before instanceof PDFDict ? before : undefined;
    const afterDict = after instanceof PDFDict ? after : undefined;
    if (roles.has('catalog') && beforeDict && afterDict) return this.judgeCatalog(beforeDict, afterDict);
    if (roles.has('page') && beforeDict && afterDict) {
      for (const key of changedKeys(beforeDict, afterDict)) {
        if (key === 'Annots') {
          this.checkGrowingArray(`page ${n} 0 R /Annots`, beforeDict.get(PDFName.of(key)), afterDict.get(PDFName.of(key)), this.classifyNewAnnotation, 'annotation-removed');
        } else this.refuse(key === 'AA' ? 'action-added' : 'page-changed', `page ${n} 0 R: /${key} changed`);
      }
      return;
    }
    if (roles.has('page-annots')) return this.checkGrowingArray(`annotations array ${n} 0 R`, before, after, this.classifyNewAnnotation, 'annotation-removed');
    if (roles.has('acroform') && beforeDict && afterDict) return this.judgeAcroForm(beforeDict, afterDict);
    if (roles.has('fields')) return this.checkGrowingArray(`fields array ${n} 0 R`, before, after, this.classifyNewField, 'field-removed');
    if ((roles.has('field') || roles.has('widget')) && beforeDict && afterDict) return this.judgeField(n, beforeDict, afterDict);
    if (roles.has('appearance')) {
      const users = this.beforeRoles.appearanceUsers.get(n);
      if (users && users.size > 1) {
        this.refuse('shared-appearance', `${what} was changed in place, but it is the appearance of ${users.size} widgets (${[...users].map((u) => `${u} 0 R`).join(', ')}), not only of the field being filled`);
        return;
      }
      const widget = users ? [...users][0] : undefined;
      const field = widget !== undefined ? this.fieldNameOf(widget) : undefined;
      return void this.allow('fill', `appearance changed: ${what}`, { object: n, ...(field !== undefined ? { field } : {}) });
    }
    if (roles.has('dss') && beforeDict && afterDict) return this.judgeDss(`/DSS ${n} 0 R`, beforeDict, afterDict);
    if (roles.has('dss-container')) return this.judgeDssContainer(n, before, after);
    if (roles.has('extensions')) return void this.allow('dss', `developer extensions changed: ${what}`, { object: n });
    if (roles.has('metadata')) {
      this.warnings.push(`the XMP metadata stream ${n} 0 R was changed after signing`);
      return void this.allow('metadata', `metadata changed: ${what}`, { object: n });
    }
    if (roles.has('info')) return this.judgeInfo(n, beforeDict, afterDict);
    this.refuse('unexplained-change', `an existing object was changed that no allowed change explains: ${what}`);
  }

  /** /Info: entries no viewer shows are bookkeeping; anything else is a metadata change (with a warning). */
  judgeInfo(n: number, before: PDFDict | undefined, after: PDFDict | undefined): void {
    const keys = before && after ? changedKeys(before, after) : ['(whole dictionary)'];
    if (keys.every((k) => INFO_BOOKKEEPING.has(k))) {
      return void this.allow('info-bookkeeping', `document information ${n} 0 R: ${keys.map((k) => `/${k}`).join(', ')} changed`, { object: n });
    }
    this.warnings.push(`the document information dictionary ${n} 0 R was changed after signing (${keys.map((k) => `/${k}`).join(', ')})`);
    this.allow('metadata', `document information changed: ${describe(n, after)}`, { object: n });
  }

  /** /DSS add-only (ETSI EN 319 142-1 §5.4.2, as pyHanko enforces it): arrays grow, VRI keys are only added. */
  private judgeDss(label: string, before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      const oldValue = before.get(PDFName.of(key));
      const newValue = after.get(PDFName.of(key));
      if (DSS_ARRAYS.has(key)) this.checkGrowingArray(`${label} /${key}`, oldValue, newValue, this.acceptDssStream, 'dss-structure');
      else if (key === 'VRI') this.judgeVri(`${label} /VRI`, dictOf(this.before, oldValue), dictOf(this.after, newValue));
      else if (oldValue === undefined) this.allow('dss', `${label}: /${key} added`);
      else this.refuse('dss-structure', `${label}: /${key} changed (the /DSS may only grow)`);
    }
  }

  private judgeVri(label: string, before: PDFDict | undefined, after: PDFDict | undefined): void {
    if (!after) {
      if (before) this.refuse('dss-structure', `${label} was removed`);
      return;
    }
    for (const [key, value] of before?.entries() ?? []) {
      const now = after.get(key);
      if (now === undefined) this.refuse('dss-structure', `${label}: the entry ${key.decodeText()} was removed`);
      else if (!samePdfValue(value, now) || (value instanceof PDFRef && !samePdfValue(resolveIn(this.before, value), resolveIn(this.after, now)))) {
        this.refuse('dss-structure', `${label}: the existing entry ${key.decodeText()} was replaced (VRI entries may only be added)`);
      }
    }
    for (const [key] of after.entries()) if (!before?.has(key)) this.allow('dss', `${label}: entry ${key.decodeText()} added`);
  }

  private judgeDssContainer(n: number, before: PDFObject, after: PDFObject): void {
    if (before instanceof PDFArray || after instanceof PDFArray) {
      return this.checkGrowingArray(`/DSS array ${n} 0 R`, before, after, this.acceptDssStream, 'dss-structure');
    }
    if (before instanceof PDFDict && after instanceof PDFDict) return this.judgeVri(`/DSS /VRI ${n} 0 R`, before, after);
    this.refuse('dss-structure', `/DSS entry ${n} 0 R changed its type`);
  }

  private judgeAcroForm(before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      if (key === 'Fields') {
        this.checkGrowingArray('/AcroForm /Fields', before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.classifyNewField, 'field-removed');
      } else if (key === 'SigFlags') this.allow('form-bookkeeping', '/AcroForm /SigFlags changed');
      // /NeedAppearances makes viewers redraw every field: a form-filling change, as are resources and defaults.
      else if (key === 'DR' || key === 'DA' || key === 'Q' || key === 'NeedAppearances') this.allow('fill', `/AcroForm /${key} changed`);
      else this.refuse('acroform-changed', `/AcroForm /${key} changed`);
    }
  }

  private judgeCatalog(before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      const oldValue = before.get(PDFName.of(key));
      const newValue = after.get(PDFName.of(key));
      if (key === 'AcroForm') {
        // A direct or replaced /AcroForm dictionary is judged like an edited one; a new one is allowed.
        const oldForm = dictOf(this.before, oldValue);
        const newForm = dictOf(this.after, newValue);
        if (oldForm && newForm) this.judgeAcroForm(oldForm, newForm);
        else if (!oldForm && newForm) {
          this.allow('form-bookkeeping', 'catalog /AcroForm added');
          this.judgeAcroForm(PDFDict.withContext(newForm.context), newForm);
        } else this.refuse('acroform-changed', 'catalog /AcroForm removed');
      } else if (key === 'DSS') {
        const oldDss = dictOf(this.before, oldValue);
        const newDss = dictOf(this.after, newValue);
        if (!newDss) this.refuse('dss-structure', 'catalog /DSS removed');
        else if (!oldDss) this.allow('dss', 'catalog /DSS added');
        else this.judgeDss('catalog /DSS', oldDss, newDss);
      } else if (key === 'Extensions') {
        // ISO 32000-2 §7.12: a signer may declare the extensions its signature needs (e.g. ISO 32002 /ISO_).
        this.allow('dss', 'catalog /Extensions changed');
      } else if (key === 'Version') {
        const from = oldValue instanceof PDFName ? Number(oldValue.decodeText()) : 0;
        const to = newValue instanceof PDFName ? Number(newValue.decodeText()) : NaN;
        if (Number.isFinite(to) && to >= from) this.allow('dss', `catalog /Version set to ${to.toFixed(1)}`);
        else this.refuse('catalog-changed', 'catalog /Version lowered or removed');
      } else if (key === 'Metadata') {
        this.warnings.push('the catalog /Metadata was replaced after signing');
        this.allow('metadata', 'catalog /Metadata changed');
      } else if (key === 'OpenAction' || key === 'AA') {
        this.refuse('action-added', `catalog /${key} changed`);
      } else this.refuse('catalog-changed', `catalog /${key} changed`);
    }
  }

  /** Says where an appearance (the /AP value or one of its streams) is used outside the form, if it is. */
  private sharedAppearance(ap: PDFObject | undefined): string | undefined {
    const candidates: PDFObject[] = [];
    const collect = (value: PDFObject | undefined, depth: number): void => {
      if (value === undefined || depth > 2) return;
      if (value instanceof PDFRef) candidates.push(value);
      const resolved = resolveIn(this.before, value);
      if (resolved instanceof PDFDict) for (const [, sub] of resolved.entries()) collect(sub, depth + 1);
    };
    collect(ap, 0);
    for (const candidate of candidates) {
      const m = refNumber(candidate)!;
      const origin = this.beforeRoles.otherBy.get(m);
      if (origin !== undefined) return `${m} 0 R is also reachable from ${origin}, which no allowed change covers`;
    }
    return undefined;
  }

  private judgeField(n: number, before: PDFDict, after: PDFDict): void {
    const isSignatureField = nameOf(before, 'FT') === 'Sig' || nameOf(after, 'FT') === 'Sig' || this.afterRoles.fieldType.get(n) === 'Sig';
    const owner = this.afterRoles.fieldOwner.get(n) ?? n;
    const name = this.fieldNameOf(owner) ?? this.fieldNameOf(n);
    const field = name !== undefined ? { field: name, object: n } : { object: n };
    for (const key of changedKeys(before, after)) {
      const hadValue = before.has(PDFName.of('V')) && !(before.get(PDFName.of('V')) === PDFNull);
      if (key === 'V' && isSignatureField && hadValue) {
        this.refuse('signature-replaced', `signature field ${describe(n, after)}: its signature value was replaced`);
      } else if (key === 'V') {
        this.allow(isSignatureField ? 'sign' : 'fill', isSignatureField ? `signature field ${describe(n, after)} signed` : `form field ${describe(n, after)} filled`, field);
      } else if (key === 'Kids') {
        this.checkGrowingArray(`field ${n} 0 R /Kids`, before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.classifyNewField, 'field-removed');
      } else if (key === 'AP' && this.sharedAppearance(before.get(PDFName.of('AP')))) {
        this.refuse('shared-appearance', `${describe(n, after)}: /AP replaced, but its earlier appearance ${this.sharedAppearance(before.get(PDFName.of('AP')))}`);
      } else if (['AP', 'AS', 'MK', 'DA', 'Q'].includes(key)) {
        this.allow('fill', `${describe(n, after)}: /${key} changed`, field);
      } else if (key === 'Ff' || key === 'Lock' || key === 'SV') {
        this.allow('fill', `${describe(n, after)}: /${key} changed`, field);
        this.warnings.push(`${describe(n, after)}: /${key} changed after signing`);
      } else if (key === 'Rect' || key === 'P') {
        this.refuse('widget-moved', `${describe(n, after)}: /${key} changed (the widget moved)`);
      } else if (key === 'F') {
        // Signing or filling may set /Print or /Locked (Adobe Reader does); showing a hidden widget shows new content.
        const flags = (d: PDFDict): number => { const f = resolveIn(this.after, d.get(PDFName.of('F'))); return f instanceof PDFNumber ? f.asNumber() : 0; };
        if ((flags(before) & HIDING_FLAGS & ~flags(after)) !== 0) this.refuse('widget-flags', `${describe(n, after)}: /F changed from ${flags(before)} to ${flags(after)} (a hidden widget is shown)`);
        else this.allow('fill', `${describe(n, after)}: /F changed`, field);
      } else if (key === 'A' || key === 'AA') {
        this.refuse('action-added', `${describe(n, after)}: /${key} changed`);
      } else this.refuse('field-changed', `${describe(n, after)}: /${key} changed`);
    }
  }
}

/**
 * Judges every update section against the state before it: each section's objects are those whose
 * cross-reference entry differs from the previous revision's, resolved through the section's own xref chain.
 * Returns the changes of every update (revision 1 onwards) and the document's final state.
 */
export function diffRevisions(sections: readonly RevisionSection[]): { changes: RevisionChanges[]; final: ObjectState } {
  let state: ObjectState | undefined;
  let rolesBefore: Roles | undefined;
  const changes: RevisionChanges[] = [];
  for (const section of sections) {
    const after: ObjectState = { objects: section.view, root: section.root ?? state?.root, info: section.info ?? state?.info, trailer: section.view.trailer };
    if (!state) {
      state = after;
      continue;
    }
    const before = state;
    const judge = new SectionJudge(before, after, rolesBefore, section.revision);
    for (const [n, object] of section.objects) {
      const old = before.objects.get(n);
      if (old === undefined || samePdfValue(old, object)) continue;
      judge.judge(n, old, object);
    }
    for (const n of section.freed) {
      if (before.objects.has(n)) judge.refuse('object-deleted', `an existing object was deleted: ${describe(n, before.objects.get(n))}`);
    }
    for (const inconsistency of section.inconsistencies) judge.refuse('xref-inconsistent', inconsistency);
    if (before.root && after.root && before.root.objectNumber !== after.root.objectNumber) {
      const oldCatalog = resolveIn(before, before.root);
      const newCatalog = resolveIn(after, after.root);
      if (oldCatalog instanceof PDFDict && newCatalog instanceof PDFDict) judge.judge(before.root.objectNumber, oldCatalog, newCatalog);
      else judge.refuse('catalog-changed', 'the document catalog was replaced');
    }
    if (before.info && after.info && before.info.objectNumber !== after.info.objectNumber) {
      // A new /Info object replaces the old one: judged like an edit of it.
      judge.judgeInfo(after.info.objectNumber, dictOf(before, before.info), dictOf(after, after.info));
    }
    const oldEncrypt = before.trailer?.get(PDFName.of('Encrypt'));
    const newEncrypt = after.trailer?.get(PDFName.of('Encrypt'));
    if (newEncrypt !== undefined && (oldEncrypt === undefined || !samePdfValue(oldEncrypt, newEncrypt))) {
      // Readers then decrypt every string and stream with a key the signer never used: the document shows something else.
      judge.refuse('encrypt-added', `the trailer of revision ${section.revision.index} ${oldEncrypt === undefined ? 'adds' : 'changes'} /Encrypt (${text(newEncrypt)})`);
    }
    changes.push({ revision: section.revision.index, changes: judge.changes, disallowed: judge.disallowed, warnings: judge.warnings });
    rolesBefore = judge.computedRolesAfter;
    state = after;
  }
  return { changes, final: state ?? { objects: { get: () => undefined, has: () => false }, root: undefined, info: undefined } };
}
