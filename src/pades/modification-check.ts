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
import { PDFArray, PDFDict, PDFName, PDFRef, PDFStream, type PDFObject } from 'pdf-lib';
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
  | 'page-content'
  | 'acroform'
  | 'fields'
  | 'field'
  | 'widget'
  | 'appearance'
  | 'signature'
  | 'signed-field'
  | 'dss'
  | 'metadata';

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

/** Marks the roles of the objects reachable along the few paths the allowed-change rules care about. */
function computeRoles(state: ObjectState): Map<number, Set<Role>> {
  const roles = new Map<number, Set<Role>>();
  const mark = (value: PDFObject | undefined, role: Role): void => {
    const n = refNumber(value);
    if (n === undefined) return;
    let set = roles.get(n);
    if (!set) roles.set(n, (set = new Set()));
    set.add(role);
  };
  mark(state.root, 'catalog');
  mark(state.info, 'info');
  const catalog = dictOf(state, state.root);
  if (!catalog) return roles;
  mark(catalog.get(PDFName.of('Metadata')), 'metadata');

  const markAppearance = (ap: PDFObject | undefined, role: Role): void => {
    mark(ap, role);
    const apDict = dictOf(state, ap);
    if (!apDict || resolveIn(state, ap) instanceof PDFStream) return;
    for (const [, sub] of apDict.entries()) {
      mark(sub, role);
      const subDict = resolveIn(state, sub);
      if (subDict instanceof PDFDict) for (const [, stream] of subDict.entries()) mark(stream, role);
    }
  };

  const seenPages = new Set<number>();
  const walkPages = (node: PDFObject | undefined, depth: number): void => {
    const n = refNumber(node);
    if (depth > 64 || (n !== undefined && seenPages.has(n))) return;
    if (n !== undefined) seenPages.add(n);
    const dict = dictOf(state, node);
    if (!dict) return;
    const kids = resolveIn(state, dict.get(PDFName.of('Kids')));
    if (nameOf(dict, 'Type') === 'Pages' || kids instanceof PDFArray) {
      mark(node, 'pages');
      mark(dict.get(PDFName.of('Kids')), 'pages');
      if (kids instanceof PDFArray) for (const kid of kids.asArray()) walkPages(kid, depth + 1);
      mark(dict.get(PDFName.of('Resources')), 'page-content');
      return;
    }
    mark(node, 'page');
    mark(dict.get(PDFName.of('Annots')), 'page-annots');
    const contents = dict.get(PDFName.of('Contents'));
    mark(contents, 'page-content');
    const contentsArray = resolveIn(state, contents);
    if (contentsArray instanceof PDFArray) for (const c of contentsArray.asArray()) mark(c, 'page-content');
    const resources = dict.get(PDFName.of('Resources'));
    mark(resources, 'page-content');
    const resourcesDict = dictOf(state, resources);
    if (resourcesDict) {
      for (const [, category] of resourcesDict.entries()) {
        mark(category, 'page-content');
        const categoryDict = resolveIn(state, category);
        if (categoryDict instanceof PDFDict) for (const [, item] of categoryDict.entries()) mark(item, 'page-content');
      }
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
    const signed = signedAbove || (ft === 'Sig' && value !== undefined);
    mark(node, nameOf(dict, 'Subtype') === 'Widget' ? 'widget' : 'field');
    if (nameOf(dict, 'Subtype') === 'Widget') mark(node, 'field');
    if (signed) mark(node, 'signed-field');
    markAppearance(dict.get(PDFName.of('AP')), signed ? 'signed-field' : 'appearance');
    if (dictOf(state, value)?.has(PDFName.of('ByteRange'))) mark(value, 'signature');
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
  const seenDss = new Set<number>();
  const walkDss = (value: PDFObject | undefined, depth: number): void => {
    const n = refNumber(value);
    if (depth > 8 || (n !== undefined && seenDss.has(n))) return;
    if (n !== undefined) {
      seenDss.add(n);
      mark(value, 'dss');
    }
    const resolved = resolveIn(state, value);
    if (resolved instanceof PDFArray) for (const item of resolved.asArray()) walkDss(item, depth + 1);
    else if (resolved instanceof PDFDict) for (const [, item] of resolved.entries()) walkDss(item, depth + 1);
  };
  walkDss(dss, 0);
  return roles;
}

/** Keys whose values differ between two dictionaries. */
function changedKeys(before: PDFDict, after: PDFDict): string[] {
  const keys = new Set<string>();
  for (const [key] of before.entries()) keys.add(key.decodeText());
  for (const [key] of after.entries()) keys.add(key.decodeText());
  return [...keys].filter((k) => text(before.get(PDFName.of(k))) !== text(after.get(PDFName.of(k))));
}

/** Whether `before` and `after` hold the same value (dictionary key order ignored). */
function sameValue(before: PDFObject, after: PDFObject): boolean {
  if (before instanceof PDFDict && after instanceof PDFDict) return changedKeys(before, after).length === 0;
  if (before instanceof PDFStream && after instanceof PDFStream) {
    return changedKeys(before.dict, after.dict).length === 0 && Buffer.from(before.getContents()).equals(Buffer.from(after.getContents()));
  }
  return text(before) === text(after);
}

function describe(n: number, object: PDFObject | undefined): string {
  const dict = object instanceof PDFDict ? object : object instanceof PDFStream ? object.dict : undefined;
  const type = nameOf(dict, 'Type') ?? nameOf(dict, 'Subtype');
  const kind = object instanceof PDFStream ? 'stream' : object instanceof PDFArray ? 'array' : object instanceof PDFDict ? 'dictionary' : 'object';
  const title = dict?.get(PDFName.of('T'));
  const name = title ? ` ${title.toString()}` : '';
  return `${type ? `/${type} ` : ''}${kind}${name} ${n} 0 R`;
}

/** The judge of one update section, given the states before and after it. */
class SectionJudge {
  readonly allowed: string[] = [];
  readonly disallowed: string[] = [];
  readonly warnings: string[] = [];
  readonly categories = new Set<ChangeCategory>();
  private rolesBefore: Map<number, Set<Role>> | undefined;
  private rolesAfter: Map<number, Set<Role>> | undefined;

  constructor(
    private readonly before: ObjectState,
    private readonly after: ObjectState,
    rolesBefore: Map<number, Set<Role>> | undefined,
  ) {
    this.rolesBefore = rolesBefore;
  }

  allow(category: ChangeCategory, message: string): void {
    this.categories.add(category);
    this.allowed.push(message);
  }

  /** The roles in the state after this section, if they were needed (they are the next section's roles before). */
  get computedRolesAfter(): Map<number, Set<Role>> | undefined {
    return this.rolesAfter;
  }

  rolesOf(n: number): Set<Role> {
    this.rolesBefore ??= computeRoles(this.before);
    this.rolesAfter ??= computeRoles(this.after);
    return new Set([...(this.rolesBefore.get(n) ?? []), ...(this.rolesAfter.get(n) ?? [])]);
  }

  /** Checks that array `after` keeps every entry of `before`; reports added entries failing `accept`. */
  private checkGrowingArray(label: string, before: PDFObject | undefined, after: PDFObject | undefined, accept: (entry: PDFObject) => string | undefined): void {
    const oldArray = resolveIn(this.before, before);
    const newArray = resolveIn(this.after, after);
    const oldItems = oldArray instanceof PDFArray ? oldArray.asArray().map(text) : [];
    const newItems = newArray instanceof PDFArray ? newArray.asArray() : [];
    const newTexts = new Set(newItems.map(text));
    const removed = oldItems.filter((t) => !newTexts.has(t));
    if (removed.length > 0) this.disallowed.push(`${label}: entries removed (${removed.join(', ')})`);
    const oldSet = new Set(oldItems);
    for (const entry of newItems) {
      if (oldSet.has(text(entry))) continue;
      const verdict = accept(entry);
      if (verdict) this.disallowed.push(`${label}: ${verdict}`);
      else this.allow('fields', `${label}: added ${text(entry)}`);
    }
  }

  private acceptWidget = (entry: PDFObject): string | undefined => {
    const dict = dictOf(this.after, entry);
    const subtype = nameOf(dict, 'Subtype');
    if (subtype !== 'Widget') return `a /${subtype ?? 'unknown'} annotation was added (only form field widgets are allowed)`;
    this.rolesAfter ??= computeRoles(this.after);
    const n = refNumber(entry);
    const inForm = n !== undefined && (this.rolesAfter.get(n)?.has('widget') ?? false);
    return inForm ? undefined : `widget ${text(entry)} was added that belongs to no form field`;
  };

  private acceptField = (entry: PDFObject): string | undefined => (dictOf(this.after, entry) ? undefined : `added entry ${text(entry)} is not a field dictionary`);

  judge(n: number, before: PDFObject, after: PDFObject): void {
    const roles = this.rolesOf(n);
    const what = describe(n, after);
    if (roles.has('page-content')) {
      this.disallowed.push(`page content or resources changed: ${what}`);
      return;
    }
    if (roles.has('signature')) {
      this.disallowed.push(`an existing signature dictionary was changed: ${what}`);
      return;
    }
    // Only the state before counts here: the field being signed in this very update is signed only after it.
    if (this.rolesBefore?.get(n)?.has('signed-field')) {
      this.disallowed.push(`a signed signature field, its widget or its appearance was changed: ${what}`);
      return;
    }
    if (roles.has('pages')) {
      this.disallowed.push(`the page tree was changed: ${what}`);
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
    if (roles.has('appearance')) return void this.allow('fields', `appearance changed: ${what}`);
    if (roles.has('dss')) return void this.allow('dss', `/DSS changed: ${what}`);
    if (roles.has('metadata')) {
      this.warnings.push(`the XMP metadata stream ${n} 0 R was changed after signing`);
      return void this.allow('metadata', `metadata changed: ${what}`);
    }
    if (roles.has('info')) {
      this.warnings.push(`the document information dictionary ${n} 0 R was changed after signing`);
      return void this.allow('metadata', `document information changed: ${what}`);
    }
    this.disallowed.push(`an existing object was changed: ${what}`);
  }

  private judgeAcroForm(before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      if (key === 'Fields') {
        this.checkGrowingArray('/AcroForm /Fields', before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.acceptField);
      } else if (['SigFlags', 'DR', 'DA', 'NeedAppearances'].includes(key)) this.allow('fields', `/AcroForm /${key} changed`);
      else this.disallowed.push(`/AcroForm /${key} changed`);
    }
  }

  private judgeCatalog(before: PDFDict, after: PDFDict): void {
    for (const key of changedKeys(before, after)) {
      if (key === 'AcroForm') {
        // A direct or replaced /AcroForm dictionary is judged like an edited one; a new one is allowed.
        const oldForm = dictOf(this.before, before.get(PDFName.of(key)));
        const newForm = dictOf(this.after, after.get(PDFName.of(key)));
        if (oldForm && newForm) this.judgeAcroForm(oldForm, newForm);
        else if (!oldForm && newForm) this.allow('fields', 'catalog /AcroForm added');
        else this.disallowed.push('catalog /AcroForm removed');
      } else if (key === 'DSS' || key === 'Extensions') {
        this.allow('dss', `catalog /${key} changed`);
      } else if (key === 'Metadata') {
        this.warnings.push('the catalog /Metadata was replaced after signing');
        this.allow('metadata', 'catalog /Metadata changed');
      } else this.disallowed.push(`catalog /${key} changed`);
    }
  }

  private judgeField(n: number, before: PDFDict, after: PDFDict): void {
    const isSignatureField = nameOf(before, 'FT') === 'Sig' || nameOf(after, 'FT') === 'Sig';
    for (const key of changedKeys(before, after)) {
      if (key === 'V' && isSignatureField && before.has(PDFName.of('V'))) {
        this.disallowed.push(`signature field ${describe(n, after)}: its signature value was replaced`);
      } else if (key === 'V') {
        this.allow('fields', isSignatureField ? `signature field ${describe(n, after)} signed` : `form field ${describe(n, after)} filled`);
      } else if (key === 'Kids') {
        this.checkGrowingArray(`field ${n} 0 R /Kids`, before.get(PDFName.of(key)), after.get(PDFName.of(key)), this.acceptField);
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
 * Merges the sections in file order and judges every update section against the state before it. Returns the
 * changes of every update (revision 1 onwards) and the document's final state.
 */
export function diffRevisions(sections: readonly RevisionSection[]): { changes: RevisionChanges[]; final: ObjectState } {
  const objects = new Map<number, PDFObject>();
  let root: PDFRef | undefined;
  let info: PDFRef | undefined;
  let rolesBefore: Map<number, Set<Role>> | undefined;
  const changes: RevisionChanges[] = [];
  for (const section of sections) {
    if (section.revision.index === 0) {
      for (const [n, object] of section.objects) objects.set(n, object);
      root = section.root ?? root;
      info = section.info ?? info;
      continue;
    }
    // The state after the section is an overlay on the state before it, so no copy of the whole document is made.
    const freed = new Set(section.freed);
    const overlay: ObjectLookup = {
      get: (n) => section.objects.get(n) ?? (freed.has(n) ? undefined : objects.get(n)),
      has: (n) => section.objects.has(n) || (!freed.has(n) && objects.has(n)),
    };
    const before: ObjectState = { objects, root, info };
    const after: ObjectState = { objects: overlay, root: section.root ?? root, info: section.info ?? info };
    const judge = new SectionJudge(before, after, rolesBefore);
    for (const [n, object] of section.objects) {
      const old = objects.get(n);
      if (old === undefined || sameValue(old, object)) continue;
      judge.judge(n, old, object);
    }
    for (const n of section.freed) {
      if (objects.has(n)) judge.disallowed.push(`an existing object was deleted: ${describe(n, objects.get(n))}`);
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
    for (const [n, object] of section.objects) objects.set(n, object);
    for (const n of section.freed) objects.delete(n);
    root = after.root;
    info = after.info;
  }
  return { changes, final: { objects, root, info } };
}
