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
import { PDFArray, PDFDict, PDFName, PDFNull, PDFRef, PDFStream, type PDFObject } from '../pdf/pdf-lib.js';
import { changedKeys, samePdfValue } from './pdf-value-equality.js';
import type { RevisionSection } from '../pdf/revisions.js';

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

/** What one incremental update changed, sorted into allowed and disallowed changes. */
export interface RevisionChanges {
  /** Index of the revision (1 = first incremental update). */
  readonly revision: number;
  readonly allowed: readonly string[];
  readonly disallowed: readonly string[];
  readonly warnings: readonly string[];
  /** What kinds of allowed change the update made (a certification with P=1 only tolerates `dss`). */
  readonly categories: readonly ChangeCategory[];
}

/** Kinds of allowed change: form fields (signing, filling, widgets, appearances), /DSS, metadata. */
export type ChangeCategory = 'fields' | 'dss' | 'metadata';

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
  const roles: Roles = { byObject, renderedBy, otherBy, appearanceUsers };
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
  const walkField = (node: PDFObject | undefined, depth: number, inheritedFt: string | undefined, signedAbove: boolean): void => {
    const n = refNumber(node);
    if (depth > 32 || (n !== undefined && seenFields.has(n))) return;
    if (n !== undefined) seenFields.add(n);
    const dict = dictOf(state, node);
    if (!dict) return;
    const ft = nameOf(dict, 'FT') ?? inheritedFt;
    const value = dict.get(PDFName.of('V'));
    const signed = signedAbove || (ft === 'Sig' && value !== undefined && !(value === PDFNull));
    const isWidget = nameOf(dict, 'Subtype') === 'Widget';
    mark(node, isWidget ? 'widget' : 'field');
    if (isWidget) mark(node, 'field');
    if (signed) mark(node, 'signed-field');
    const label = `the ${signed ? 'signed ' : ''}field ${n ?? '?'} 0 R's appearance`;
    markAppearance(n, dict.get(PDFName.of('AP')), signed ? 'signed-field' : 'appearance', label);
    if (dictOf(state, value)?.has(PDFName.of('ByteRange'))) {
      mark(value, 'signature');
      // What a signature dictionary references (e.g. /Reference, /Prop_Build) is part of the signature.
      walkRendered(dictOf(state, value), `the signature dictionary ${refNumber(value) ?? '?'} 0 R`, 'signature');
    }
    mark(dict.get(PDFName.of('Kids')), 'fields');
    const kids = resolveIn(state, dict.get(PDFName.of('Kids')));
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) walkField(kid, depth + 1, ft, signed);
  };
  if (acroDict) {
    mark(acroDict.get(PDFName.of('Fields')), 'fields');
    const fields = resolveIn(state, acroDict.get(PDFName.of('Fields')));
    if (fields instanceof PDFArray) for (const f of fields.asArray()) walkField(f, 0, undefined, false);
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
  const type = nameOf(dict, 'Type') ?? nameOf(dict, 'Subtype');
  const kind = object instanceof PDFStream ? 'stream' : object instanceof PDFArray ? 'array' : object instanceof PDFDict ? 'dictionary' : 'object';
  const title = dict?.get(PDFName.of('T'));
  const name = title ? ` ${title.toString()}` : '';
  return `${type ? `/${type} ` : ''}${kind}${name} ${n} 0 R`;
}

const ACROFORM_BOOKKEEPING = new Set(['SigFlags', 'DR', 'DA', 'NeedAppearances', 'Q']);
const DSS_ARRAYS = new Set(['Certs', 'OCSPs', 'CRLs']);

/** The judge of one update section, given the states before and after it. */
class SectionJudge {
  readonly allowed: string[] = [];
  readonly disallowed: string[] = [];
  readonly warnings: string[] = [];
  readonly categories = new Set<ChangeCategory>();
  private rolesBefore: Roles | undefined;
  private rolesAfter: Roles | undefined;

  constructor(
    private readonly before: ObjectState,
    private readonly after: ObjectState,
    rolesBefore: Roles | undefined,
  ) {
    this.rolesBefore = rolesBefore;
  }

  allow(category: ChangeCategory, message: string): void {
    this.categories.add(category);
    this.allowed.push(message);
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

  /** Checks that array `after` keeps every entry of `before`; reports added entries failing `accept`. */
  private checkGrowingArray(label: string, before: PDFObject | undefined, after: PDFObject | undefined, accept: (entry: PDFObject) => string | undefined, category: ChangeCategory = 'fields'): void {
    const oldArray = resolveIn(this.before, before);
    const newArray = resolveIn(this.after, after);
    const oldItems = oldArray instanceof PDFArray ? oldArray.asArray() : [];
    const newItems = newArray instanceof PDFArray ? newArray.asArray() : [];
    const removed = oldItems.filter((o) => !newItems.some((n) => samePdfValue(o, n)));
    if (removed.length > 0) this.disallowed.push(`${label}: entries removed (${removed.map(text).join(', ')})`);
    for (const entry of newItems) {
      if (oldItems.some((o) => samePdfValue(o, entry))) continue;
      const verdict = accept(entry);
      if (verdict) this.disallowed.push(`${label}: ${verdict}`);
      else this.allow(category, `${label}: added ${text(entry)}`);
    }
  }

  private acceptWidget = (entry: PDFObject): string | undefined => {
    const dict = dictOf(this.after, entry);
    const subtype = nameOf(dict, 'Subtype');
    if (subtype !== 'Widget') return `a /${subtype ?? 'unknown'} annotation was added (only form field widgets are allowed)`;
    const n = refNumber(entry);
    const inForm = n !== undefined && (this.afterRoles.byObject.get(n)?.has('widget') ?? false);
    return inForm ? undefined : `widget ${text(entry)} was added that belongs to no form field`;
  };

  private acceptField = (entry: PDFObject): string | undefined => (dictOf(this.after, entry) ? undefined : `added entry ${text(entry)} is not a field dictionary`);

  /** An entry added to a /DSS array must be a new stream (certificate, OCSP response, CRL), not an existing object. */
  private acceptDssStream = (entry: PDFObject): string | undefined => {
    const n = refNumber(entry);
    if (n === undefined) return `added entry ${text(entry)} is not a reference to a stream`;
    if (this.before.objects.has(n) && this.rolesOf(n).size > 0 && !this.rolesOf(n).has('dss-entry')) {
      return `added entry ${n} 0 R is an object the document already uses elsewhere`;
    }
    return resolveIn(this.after, entry) instanceof PDFStream ? undefined : `added entry ${n} 0 R is not a stream`;
  };

  judge(n: number, before: PDFObject, after: PDFObject): void {
    const roles = this.rolesOf(n);
    const what = describe(n, after);
    if (roles.has('rendered')) {
      const by = this.beforeRoles.renderedBy.get(n) ?? this.afterRoles.renderedBy.get(n) ?? 'a page';
      this.disallowed.push(`page content or resources changed: ${what}, which ${by} draws`);
      return;
    }
    if (roles.has('signature')) {
      this.disallowed.push(`an existing signature dictionary (or an object it references) was changed: ${what}`);
      return;
    }
    // Only the state before counts here: the field being signed in this very update is signed only after it.
    if (this.beforeRoles.byObject.get(n)?.has('signed-field')) {
      this.disallowed.push(`a signed signature field, its widget or its appearance was changed: ${what}`);
      return;
    }
    if (roles.has('dss-entry')) {
      this.disallowed.push(`an existing /DSS entry was changed (the /DSS may only grow): ${what}`);
      return;
    }
    if (roles.has('pages')) {
      this.disallowed.push(`the page tree was changed: ${what}`);
      return;
    }
    if (roles.has('other')) {
      const from = this.beforeRoles.otherBy.get(n) ?? this.afterRoles.otherBy.get(n) ?? 'another entry';
      this.disallowed.push(`${what} was changed, and it is also reachable from ${from}, which no allowed change covers`);
      return;
    }
    const beforeDict = before instanceof PDFDict ? before : undefined;
    const afterDict = after instanceof PDFDict ? after : undefined;
    if (roles.has('catalog') && beforeDict && afterDict) return this.judgeCatalog(beforeDict, afterDict);
    if (roles.has('page') && beforeDict && afterDict) {
      for (const key of changedKeys(beforeDict, afterDict)) {
        if (key === 'Annots') {
          this.checkGrowingArray(`page ${n} 0 R /Annots`, beforeDict.get(PDFName.of(key)), afterDict.get(PDFName.of(key)), this.acceptWidget);
        } else this.disallowed.push(`page ${n} 0 R: /${key} changed`);
      }
      return;
    }
    if (roles.has('page-annots')) return this.checkGrowingArray(`annotations array ${n} 0 R`, before, after, this.acceptWidget);
    if (roles.has('acroform') && beforeDict && afterDict) return this.judgeAcroForm(beforeDict, afterDict);
    if (roles.has('fields')) return this.checkGrowingArray(`fields array ${n} 0 R`, before, after, this.acceptField);
    if ((roles.has('field') || roles.has('widget')) && beforeDict && afterDict) return this.judgeField(n, beforeDict, afterDict);
    if (roles.has('appearance')) {
      const users = this.beforeRoles.appearanceUsers.get(n);
      if (users && users.size > 1) {
        this.disallowed.push(`${what} was changed in place, but it is the appearance of ${users.size} widgets (${[...users].map((u) => `${u} 0 R`).join(', ')}), not only of the field being filled`);
        return;
      }
      return void this.allow('fields', `appearance changed: ${what}`);
    }
    if (roles.has('dss') && beforeDict && afterDict) return this.judgeDss(`/DSS ${n} 0 R`, beforeDict, afterDict);
    if (roles.has('dss-container')) return this.judgeDssContainer(n, before, after);
    if (roles.has('extensions')) return void this.allow('dss', `developer extensions changed: ${what}`);
    if (roles.has('metadata')) {
      this.warnings.push(`the XMP metadata stream ${n} 0 R was changed after signing`);
      return void this.allow('metadata', `metadata changed: ${what}`);
    }
    if (roles.has('info')) {
      this.warnings.push(`the document information dictionary ${n} 0 R was changed after signing`);
      return void this.allow('metadata', `document information changed: ${what}`);
    }
    this.disallowed.push(`an existing object was changed that no allowed change explains: ${what}`);
  }

  /** /DSS add-only (ETSI EN 319 142-1 §5.4.2, as pyHanko enforces it): arrays grow, VRI keys are only added. */
  private judgeDss(label: string, before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      const oldValue = before.get(PDFName.of(key));
      const newValue = after.get(PDFName.of(key));
      if (DSS_ARRAYS.has(key)) this.checkGrowingArray(`${label} /${key}`, oldValue, newValue, this.acceptDssStream, 'dss');
      else if (key === 'VRI') this.judgeVri(`${label} /VRI`, dictOf(this.before, oldValue), dictOf(this.after, newValue));
      else if (oldValue === undefined) this.allow('dss', `${label}: /${key} added`);
      else this.disallowed.push(`${label}: /${key} changed (the /DSS may only grow)`);
    }
  }

  private judgeVri(label: string, before: PDFDict | undefined, after: PDFDict | undefined): void {
    if (!after) {
      if (before) this.disallowed.push(`${label} was removed`);
      return;
    }
    for (const [key, value] of before?.entries() ?? []) {
      const now = after.get(key);
      if (now === undefined) this.disallowed.push(`${label}: the entry ${key.decodeText()} was removed`);
      else if (!samePdfValue(value, now) || (value instanceof PDFRef && !samePdfValue(resolveIn(this.before, value), resolveIn(this.after, now)))) {
        this.disallowed.push(`${label}: the existing entry ${key.decodeText()} was replaced (VRI entries may only be added)`);
      }
    }
    for (const [key] of after.entries()) if (!before?.has(key)) this.allow('dss', `${label}: entry ${key.decodeText()} added`);
  }

  private judgeDssContainer(n: number, before: PDFObject, after: PDFObject): void {
    if (before instanceof PDFArray || after instanceof PDFArray) {
      return this.checkGrowingArray(`/DSS array ${n} 0 R`, before, after, this.acceptDssStream, 'dss');
    }
    if (before instanceof PDFDict && after instanceof PDFDict) return this.judgeVri(`/DSS /VRI ${n} 0 R`, before, after);
    this.disallowed.push(`/DSS entry ${n} 0 R changed its type`);
  }

  private judgeAcroForm(before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      if (key === 'Fields') {
        this.checkGrowingArray('/AcroForm /Fields', before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.acceptField);
      } else if (ACROFORM_BOOKKEEPING.has(key)) this.allow('fields', `/AcroForm /${key} changed`);
      else this.disallowed.push(`/AcroForm /${key} changed`);
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
        else if (!oldForm && newForm) this.allow('fields', 'catalog /AcroForm added');
        else this.disallowed.push('catalog /AcroForm removed');
      } else if (key === 'DSS') {
        const oldDss = dictOf(this.before, oldValue);
        const newDss = dictOf(this.after, newValue);
        if (!newDss) this.disallowed.push('catalog /DSS removed');
        else if (!oldDss) this.allow('dss', 'catalog /DSS added');
        else this.judgeDss('catalog /DSS', oldDss, newDss);
      } else if (key === 'Extensions') {
        // ISO 32000-2 §7.12: a signer may declare the extensions its signature needs (e.g. ISO 32002 /ISO_).
        this.allow('dss', 'catalog /Extensions changed');
      } else if (key === 'Version') {
        const from = oldValue instanceof PDFName ? Number(oldValue.decodeText()) : 0;
        const to = newValue instanceof PDFName ? Number(newValue.decodeText()) : NaN;
        if (Number.isFinite(to) && to >= from) this.allow('dss', `catalog /Version set to ${to.toFixed(1)}`);
        else this.disallowed.push('catalog /Version lowered or removed');
      } else if (key === 'Metadata') {
        this.warnings.push('the catalog /Metadata was replaced after signing');
        this.allow('metadata', 'catalog /Metadata changed');
      } else if (key === 'Perms' && newValue !== undefined && dictOf(this.after, newValue) && oldValue === undefined) {
        this.disallowed.push('catalog /Perms added after signing');
      } else this.disallowed.push(`catalog /${key} changed`);
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
    const isSignatureField = nameOf(before, 'FT') === 'Sig' || nameOf(after, 'FT') === 'Sig';
    for (const key of changedKeys(before, after)) {
      const hadValue = before.has(PDFName.of('V')) && !(before.get(PDFName.of('V')) === PDFNull);
      if (key === 'V' && isSignatureField && hadValue) {
        this.disallowed.push(`signature field ${describe(n, after)}: its signature value was replaced`);
      } else if (key === 'V') {
        this.allow('fields', isSignatureField ? `signature field ${describe(n, after)} signed` : `form field ${describe(n, after)} filled`);
      } else if (key === 'Kids') {
        this.checkGrowingArray(`field ${n} 0 R /Kids`, before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.acceptField);
      } else if (key === 'AP' && this.sharedAppearance(before.get(PDFName.of('AP')))) {
        this.disallowed.push(`${describe(n, after)}: /AP replaced, but its earlier appearance ${this.sharedAppearance(before.get(PDFName.of('AP')))}`);
      } else if (['AP', 'AS', 'MK', 'P', 'DA'].includes(key)) {
        this.allow('fields', `${describe(n, after)}: /${key} changed`);
      } else if (key === 'F' || key === 'Ff' || key === 'Lock' || key === 'SV') {
        this.allow('fields', `${describe(n, after)}: /${key} changed`);
        this.warnings.push(`${describe(n, after)}: /${key} changed after signing`);
      } else this.disallowed.push(`${describe(n, after)}: /${key} changed`);
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
    const judge = new SectionJudge(before, after, rolesBefore);
    for (const [n, object] of section.objects) {
      const old = before.objects.get(n);
      if (old === undefined || samePdfValue(old, object)) continue;
      judge.judge(n, old, object);
    }
    for (const n of section.freed) {
      if (before.objects.has(n)) judge.disallowed.push(`an existing object was deleted: ${describe(n, before.objects.get(n))}`);
    }
    judge.disallowed.push(...section.inconsistencies);
    if (before.root && after.root && before.root.objectNumber !== after.root.objectNumber) {
      const oldCatalog = resolveIn(before, before.root);
      const newCatalog = resolveIn(after, after.root);
      if (oldCatalog instanceof PDFDict && newCatalog instanceof PDFDict) judge.judge(before.root.objectNumber, oldCatalog, newCatalog);
      else judge.disallowed.push('the document catalog was replaced');
    }
    changes.push({
      revision: section.revision.index,
      allowed: judge.allowed,
      disallowed: judge.disallowed,
      warnings: judge.warnings,
      categories: [...judge.categories],
    });
    rolesBefore = judge.computedRolesAfter;
    state = after;
  }
  return { changes, final: state ?? { objects: { get: () => undefined, has: () => false }, root: undefined, info: undefined } };
}
