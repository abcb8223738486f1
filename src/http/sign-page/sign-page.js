// The signing page's script: drives the signer JSON API (docs/design/signer-api.md) — session, documents
// shown page by page with pdf.js (canvas plus a text layer screen readers read), the signer's fields on the page
// where they will appear with "next field", verification steps, a typed-name signature drawn in the bundled script
// font (the equal, keyboard path) or a drawn one, sign, reject, final screen and ReturnUrl redirect. Every async
// step is announced in a polite live region; errors are tied to their fields. pdf.js loads only when documents are
// shown, so the first paint needs neither it nor its worker.

const T = JSON.parse(document.body.dataset.texts || '{}');
// Every URL relative to the service's root, which the server writes as a relative path (data-root): the page works
// wherever the service is mounted (a host's prefix, a sub-path proxy). The token is the page's own, from the server.
const root = new URL(document.body.dataset.root || '/', location.href);
const token = document.body.dataset.token || '';
const serviceUrl = (path) => new URL(path, root).href;
const api = serviceUrl(`api/signer/${encodeURIComponent(token)}`);
const asset = (name) => new URL(name, import.meta.url).href;
const $ = (id) => document.getElementById(id);
/** TransactionStatus.Signed: everything signed (and sealed). */
const STATUS_SIGNED = 30;
const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => String(values[k] ?? ''));
const number = new Intl.NumberFormat(T.lang);
const listFormat = typeof Intl.ListFormat === 'function' ? new Intl.ListFormat(T.lang, { type: 'conjunction' }) : { format: (xs) => xs.join(', ') };
const reducedMotion = window.matchMedia('(prefers-reduced-motion: reduce)');
const SIGNATURE_FONT = '"Dancing Script", cursive';
const INK = '#0b1f66';

let session;
let pad;
let pdfjsLoaded;
/** Values the signer entered: fileId → field name → value. */
const values = {};
/** The fields the signer fills, in page order: { fileId, field, controls (on the page), listControls, list, error, next }. */
let fillable = [];
/** The field "next field" goes on from (its index in `fillable`). */
let current = -1;
const FILLABLE = new Set(['Check', 'Radio', 'SingleLine', 'Date', 'Number']);
/** The zoom relative to "fit width", its bounds and step; the pages shown ({ pdfPage, host, wrap, canvas, text, n, width, height }). */
let zoom = 1;
const ZOOM_MIN = 0.5;
const ZOOM_MAX = 4;
const ZOOM_STEP = 1.25;
const MAX_CANVAS_PIXELS = 16_000_000;
let shownPages = [];
let redrawTimer;
const percent = new Intl.NumberFormat(T.lang, { style: 'percent', maximumFractionDigits: 0 });

function announce(text) {
  const el = $('announcer');
  el.textContent = '';
  // A fresh text node in a later task makes screen readers announce the same message twice in a row, too.
  setTimeout(() => (el.textContent = text), 50);
}

function showError(el, text, input) {
  el.hidden = false;
  el.textContent = `${T.errorPrefix} ${text}`;
  if (input) input.setAttribute('aria-invalid', 'true');
}

function clearError(el, input) {
  el.hidden = true;
  el.textContent = '';
  if (input) input.removeAttribute('aria-invalid');
}

const API_ERRORS = JSON.parse(document.body.dataset.apiErrors || '{}');

// A refusal of the API in the page's language, by its stable code (Paraph-Error-Code), else by its status; the API's
// English Message is never shown (sign-page-error-texts.ts builds the table).
function apiError(code, status) {
  const key = (code && API_ERRORS.keys[code]) || API_ERRORS.status[status >= 500 ? 500 : status] || 'notAccepted';
  const error = new Error(API_ERRORS.texts[key]);
  error.status = status;
  error.code = code;
  return error;
}

async function request(method, path, body) {
  let response;
  try {
    response = await fetch(api + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'omit',
    });
  } catch {
    throw apiError(undefined, 0);
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw apiError(response.headers.get('paraph-error-code') || undefined, response.status);
  return json;
}

function showMessage(title, text, options = {}) {
  $('loading').hidden = true;
  $('journey').hidden = true;
  $('message').hidden = false;
  $('message-title').textContent = title;
  $('message-text').textContent = text;
  const link = $('message-link');
  link.hidden = !options.link;
  if (options.link) {
    link.href = options.link;
    link.textContent = T.continue;
  }
  $('message-show').hidden = !options.show;
  $('message-show').href = serviceUrl(`show/${encodeURIComponent(token)}`);
  $('message-receipt').hidden = !options.receipt;
  $('message-receipt').href = serviceUrl(`receipt/${encodeURIComponent(token)}`);
  document.title = `${title} – ${T.title}`;
  $('message-title').focus();
}

function finish(state, returnUrl, complete) {
  const signed = state === 'signed';
  const text = signed ? (complete ? T.signedAllText : T.signedText) : T.rejectedText;
  showMessage(signed ? T.signedHeading : T.rejectedHeading, returnUrl ? `${text} ${T.redirecting}` : text, {
    link: returnUrl,
    show: signed,
    receipt: signed && complete,
  });
  $('message').classList.add(signed ? 'success' : 'neutral');
  if (returnUrl) setTimeout(() => location.assign(returnUrl), 2500);
}

function endedText(status) {
  return { 30: T.completedText, 40: T.rejectedByOtherText, 50: T.expiredText, 60: T.cancelledText }[status] || T.failedText;
}

async function load() {
  try {
    session = await request('GET', '');
  } catch (error) {
    if (error.status === 410) showMessage(T.cleanedHeading, T.cleanedText);
    else if (error.status === 404) showMessage(T.errorHeading, T.invalidLinkText);
    else showMessage(T.errorHeading, error.message);
    return;
  }
  const s = session;
  if (s.Reference) $('ref').textContent = `${T.reference}: ${s.Reference}`;
  showSender(s.Sender);
  switch (s.State) {
    case 'signed':
    case 'rejected':
      return finish(s.State, s.ReturnUrl, s.TransactionStatus === STATUS_SIGNED);
    case 'waiting': {
      // Signers before this one are named when the transaction gives their name; never by e-mail address.
      const names = s.WaitingFor.map((w) => w.Name).filter((name) => typeof name === 'string' && name !== '');
      return showMessage(T.waitingHeading, names.length > 0 ? fmt(T.waitingText, { names: listFormat.format(names) }) : '');
    }
    case 'not-started':
      return showMessage(T.notStartedHeading, T.notStartedText);
    case 'ended':
      return showMessage(T.endedHeading, endedText(s.TransactionStatus));
    case 'processing':
      return showMessage(T.processingHeading, T.processingText);
    default:
      break;
  }
  $('loading').hidden = true;
  $('journey').hidden = false;
  $('greeting').textContent = fmt(T.greeting, { name: s.Signer.Name || s.Signer.Email });
  if (s.Signer.IntroText) $('intro-text').textContent = s.Signer.IntroText;
  if (s.Reference) {
    $('reference').hidden = false;
    $('reference').textContent = `${T.reference}: ${s.Reference}`;
  }
  renderSteps();
  // The bench (bench/sign-page.bench.ts) reads these marks: the steps are usable, the first page is drawn.
  performance.mark('paraph:interactive');
  try {
    await renderDocuments(s.Documents);
  } catch (error) {
    // A document pdf.js cannot show leaves the steps usable; the download link still offers it.
    console.warn('document not shown', error);
  }
}

/**
 * The account's brand colour as the page's accent (the service made it readable: white on it reaches 4.5:1). Set
 * through the CSS object model, which the page's Content-Security-Policy allows, unlike a style attribute.
 */
function showAccent(color, dark) {
  const root = document.documentElement.style;
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  root.setProperty('--brand', color);
  root.setProperty('--brand-dark', dark);
  root.setProperty('--field', `rgba(${r}, ${g}, ${b}, 0.12)`);
}

/** Who asks: the organisation in the banner of every state, and the sender with their address above the documents. */
function showSender(sender) {
  if (!sender) return;
  if (sender.Color && sender.ColorDark) showAccent(sender.Color, sender.ColorDark);
  $('org').textContent = sender.Organization;
  $('org').hidden = false;
  if (sender.Logo) {
    // Served by the service itself (a path under its root): the page asks no other host for it.
    const logo = $('org-logo');
    logo.alt = sender.Organization;
    logo.src = serviceUrl(sender.Logo.replace(/^\//, ''));
    logo.hidden = false;
  }
  $('request-from').textContent = fmt(T.requestFrom, { org: sender.Organization });
  const line = $('sender');
  line.textContent = '';
  if (!sender.Name && !sender.Email) return;
  const [before, after = ''] = T.sender.split('{sender}');
  line.append(before);
  if (sender.Name) line.append(sender.Name);
  if (sender.Name && sender.Email) line.append(' · ');
  if (sender.Email) {
    const mail = document.createElement('a');
    mail.href = `mailto:${sender.Email}`;
    mail.textContent = sender.Email;
    line.append(mail);
  }
  line.append(after);
  line.hidden = false;
}

function loadPdfjs() {
  pdfjsLoaded ??= import(asset('pdf.min.mjs')).then((pdfjs) => {
    pdfjs.GlobalWorkerOptions.workerSrc = asset('pdf.worker.min.mjs');
    return pdfjs;
  });
  return pdfjsLoaded;
}

async function renderDocuments(documents) {
  const host = $('documents');
  host.textContent = '';
  fillable = [];
  shownPages = [];
  $('documents-title').hidden = documents.length === 0;
  $('viewer-bar').hidden = documents.length === 0;
  showZoom();
  for (const doc of documents) {
    const card = document.createElement('article');
    card.className = 'card document';
    card.dataset.fileId = doc.FileId;
    const h = document.createElement('h3');
    h.textContent = doc.DisplayName;
    h.id = domId('doc', doc.FileId);
    card.setAttribute('aria-labelledby', h.id);
    const meta = document.createElement('p');
    meta.className = 'muted small';
    meta.textContent = fmt(T.pageCount, { count: number.format(doc.Pages) });
    const download = document.createElement('a');
    download.href = `${api}/file/${encodeURIComponent(doc.FileId)}`;
    download.download = `${doc.DisplayName}.pdf`;
    download.textContent = fmt(T.downloadDocument, { name: doc.DisplayName });
    const downloadRow = document.createElement('p');
    downloadRow.append(download);
    card.append(h, meta, downloadRow);
    if (doc.Description) {
      const d = document.createElement('p');
      d.textContent = doc.Description;
      card.append(d);
    }
    const pages = document.createElement('div');
    pages.className = 'pages';
    card.append(pages);
    host.append(card);
    values[doc.FileId] ??= {};
    await renderPdf(doc, pages);
  }
  numberFields();
}

function domId(prefix, ...parts) {
  return `${prefix}-${parts.join('-')}`.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The field's label from the session, else its key made readable. */
function fieldLabel(field) {
  return field.Label || field.Name.split('.').pop().replace(/_/g, ' ');
}

/** CSS pixels per PDF point of a shown page at the current zoom: "fit width" (at most 820 px) times the zoom. */
function pageScale(p) {
  const style = getComputedStyle(p.host);
  const room = p.host.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  return (Math.min(room > 0 ? room : 800, 820) / p.width) * zoom;
}

/** Sizes a page for the current zoom at once (the drawn image stretches until it is drawn again). */
function sizePage(p) {
  const scale = pageScale(p);
  p.wrap.style.width = `${p.width * scale}px`;
  p.wrap.style.height = `${p.height * scale}px`;
  p.wrap.style.setProperty('--page-scale', String(scale));
  p.text.style.setProperty('--total-scale-factor', String(scale));
  fitSignatureLabels(p);
}

/**
 * A signature box shows "Sign here: <name>" when that fits at the current zoom, else a pen; its accessible name is
 * always the whole text. Text cut off mid-word in a small box reads as a fault.
 */
function fitSignatureLabels(p) {
  for (const button of p.wrap.querySelectorAll('button.overlay-signature')) {
    const label = button.getAttribute('aria-label') ?? '';
    button.textContent = label;
    button.classList.remove('compact');
    if (button.scrollWidth > button.clientWidth + 1 || button.scrollHeight > button.clientHeight + 1) {
      button.textContent = '\u270E';
      button.classList.add('compact');
    }
  }
}

/**
 * Draws a page with pdf.js (its worker parses and the browser rasterises: nothing of it on the server) at the current
 * zoom and the screen's pixel ratio, into a fresh canvas that replaces the shown one when done, so zooming never
 * shows a blank page. Each drawing is measured as `paraph:render-page` (bench/sign-page.bench.ts reads it).
 */
async function drawPage(p) {
  const pdfjs = await loadPdfjs();
  sizePage(p);
  const ratio = window.devicePixelRatio || 1;
  // Browsers refuse canvases much beyond 16 million pixels: past that a page is drawn less sharp, never blank.
  const pixels = Math.min(pageScale(p) * ratio, Math.sqrt(MAX_CANVAS_PIXELS / (p.width * p.height)));
  if (p.drawnAt === pixels) return;
  p.task?.cancel();
  const viewport = p.pdfPage.getViewport({ scale: pixels });
  const canvas = document.createElement('canvas');
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', p.canvas.getAttribute('aria-label'));
  const started = performance.now();
  const task = p.pdfPage.render({ canvasContext: canvas.getContext('2d'), viewport, canvas });
  p.task = task;
  try {
    await task.promise;
  } catch (error) {
    if (error instanceof pdfjs.RenderingCancelledException) return;
    throw error;
  }
  if (p.task === task) p.task = undefined;
  performance.measure('paraph:render-page', { start: started, detail: { zoom, page: p.n, width: canvas.width, height: canvas.height } });
  p.canvas.replaceWith(canvas);
  p.canvas = canvas;
  p.drawnAt = pixels;
  p.wrap.dataset.drawnWidth = String(canvas.width);
}

/** Draws every page again at the current zoom, the ones nearest the visible part of the window first. */
async function redrawPages() {
  const distance = (p) => Math.abs(p.wrap.getBoundingClientRect().top);
  for (const p of [...shownPages].sort((a, b) => distance(a) - distance(b))) {
    try {
      await drawPage(p);
    } catch (error) {
      console.warn('page not drawn', error);
    }
  }
}

function showZoom() {
  $('zoom-level').textContent = fmt(T.zoomLevel, { percent: percent.format(zoom) });
}

/** Sets the zoom, keeping the point in the middle of the window where it was on its page, then redraws sharply. */
function setZoom(next) {
  const z = Math.round(Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, next)) * 100) / 100;
  if (z === zoom || shownPages.length === 0) return;
  const middle = window.innerHeight / 2;
  const anchor = shownPages.find((p) => {
    const r = p.wrap.getBoundingClientRect();
    return r.top <= middle && r.bottom >= middle;
  });
  const before = anchor?.wrap.getBoundingClientRect();
  const across = anchor ? (anchor.host.scrollLeft + anchor.host.clientWidth / 2) / Math.max(anchor.wrap.offsetWidth, 1) : 0;
  zoom = z;
  for (const p of shownPages) {
    sizePage(p);
    openListWhenCramped(p);
  }
  if (anchor && before) {
    const after = anchor.wrap.getBoundingClientRect();
    window.scrollBy(0, after.top + ((middle - before.top) / before.height) * after.height - middle);
    anchor.host.scrollLeft = across * anchor.wrap.offsetWidth - anchor.host.clientWidth / 2;
  }
  showZoom();
  clearTimeout(redrawTimer);
  redrawTimer = setTimeout(redrawPages, 150);
}

async function renderPdf(doc, host) {
  const pdfjs = await loadPdfjs();
  const response = await fetch(`${api}/file/${encodeURIComponent(doc.FileId)}`, { credentials: 'omit' });
  // Rejected, signed or withdrawn meanwhile: the page has moved on to its message.
  if (!response.ok) return;
  const data = new Uint8Array(await response.arrayBuffer());
  const pdf = await pdfjs.getDocument({ data, isEvalSupported: false, standardFontDataUrl: asset('standard_fonts/') }).promise;
  for (let n = 1; n <= pdf.numPages; n++) {
    const pdfPage = await pdf.getPage(n);
    const base = pdfPage.getViewport({ scale: 1 });
    const wrap = document.createElement('figure');
    wrap.className = 'page';
    const captionId = domId('caption', doc.FileId, n);
    wrap.setAttribute('aria-labelledby', captionId);
    const canvas = document.createElement('canvas');
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', fmt(T.pageImage, { name: doc.DisplayName, n: number.format(n), total: number.format(pdf.numPages) }));
    const text = document.createElement('div');
    text.className = 'textLayer';
    text.style.setProperty('--scale-round-x', '1px');
    text.style.setProperty('--scale-round-y', '1px');
    wrap.append(canvas, text);
    const caption = document.createElement('figcaption');
    caption.id = captionId;
    caption.textContent = fmt(T.page, { n: number.format(n), total: number.format(pdf.numPages) });
    host.append(wrap, caption);
    const p = { pdfPage, host, wrap, canvas, text, n, width: base.width, height: base.height };
    shownPages.push(p);
    await drawPage(p);
    // The text layer is laid out once; --total-scale-factor scales it with the zoom.
    await new pdfjs.TextLayer({ textContentSource: pdfPage.streamTextContent(), container: text, viewport: pdfPage.getViewport({ scale: pageScale(p) }) }).render();
    if (performance.getEntriesByName('paraph:first-page').length === 0) performance.mark('paraph:first-page');

    const onPage = [];
    const placed = [];
    for (const field of doc.Fields) {
      const widgets = field.Type === 'Radio' && field.Options ? field.Options.flatMap((o) => o.Widgets.map((w) => ({ w, option: o }))) : field.Widgets.map((w) => ({ w }));
      for (const { w, option } of widgets) {
        if (w.PageNumber !== n) continue;
        placed.push({ field, w, option });
        if (FILLABLE.has(field.Type) && !onPage.includes(field)) onPage.push(field);
      }
    }
    // Reading and tab order follow the page: top to bottom, then left to right.
    placed.sort((a, b) => a.w.Top - b.w.Top || a.w.Left - b.w.Left);
    onPage.sort((a, b) => placed.findIndex((x) => x.field === a) - placed.findIndex((x) => x.field === b));
    const entries = onPage.map((field) => ({ fileId: doc.FileId, field, controls: [], listControls: [] }));
    for (const { field, w, option } of placed) {
      const entry = entries.find((e) => e.field === field);
      wrap.append(onPageControl(doc, p, field, w, option, entry));
    }
    if (entries.length > 0) {
      p.list = renderFieldList(doc, entries, n);
      host.append(p.list);
      openListWhenCramped(p);
    }
    fitSignatureLabels(p);
  }
}

/**
 * Fields placed closer than the page can give each a 24 px target of its own at this zoom (their controls overlap,
 * e.g. check boxes less than ~44 pt apart at "fit width" on a phone): the page's list, the equivalent control with
 * full-size targets (WCAG 2.5.8), is opened. Zooming in separates them again; the list stays as the signer left it.
 */
function openListWhenCramped(p) {
  if (!p.list || p.list.open) return;
  const boxes = [...p.wrap.querySelectorAll('.overlay input.on-page, button.overlay')].map((el) => el.getBoundingClientRect());
  const overlap = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
  if (boxes.some((a, i) => boxes.slice(i + 1).some((b) => overlap(a, b)))) p.list.open = true;
}

/** The control of one widget over its place on the page: an input of a fillable field, a signature box that leads to the signing steps. */
function onPageControl(doc, p, field, w, option, entry) {
  const place = (el) => {
    el.classList.add('overlay', `overlay-${field.Type.toLowerCase()}`);
    el.dataset.fileId = doc.FileId;
    el.dataset.field = field.Name;
    // Placed by its centre, so that the 24 px minimum a pointer target keeps (WCAG 2.5.8) grows around its place.
    el.style.left = `${((w.Left + w.Width / 2) / p.width) * 100}%`;
    el.style.top = `${((w.Top + w.Height / 2) / p.height) * 100}%`;
    el.style.width = `${(w.Width / p.width) * 100}%`;
    el.style.height = `${(w.Height / p.height) * 100}%`;
    // Text as high as the box allows, in page points scaled with the zoom, never below 11 CSS pixels.
    el.style.setProperty('--box-font', `${Math.max(4, Math.min(w.Height * 0.6, 14))}px`);
    return el;
  };
  if (field.Type === 'Signature') {
    const button = place(document.createElement('button'));
    button.type = 'button';
    button.setAttribute('aria-label', fmt(T.signHereName, { name: session.Signer.Name || session.Signer.Email }));
    button.addEventListener('click', goToSigning);
    return button;
  }
  if (!entry) {
    const box = place(document.createElement('div'));
    box.setAttribute('aria-hidden', 'true');
    return box;
  }
  const box = place(document.createElement('div'));
  const input = document.createElement('input');
  input.className = 'on-page';
  input.id = domId('onpage', doc.FileId, field.Name, entry.controls.length);
  input.dataset.field = field.Name;
  input.dataset.fileId = doc.FileId;
  const label = fieldLabel(field) + (field.Required ? ` (${T.required})` : '');
  if (field.Type === 'Check') {
    input.type = 'checkbox';
    input.setAttribute('aria-label', label);
    input.addEventListener('change', () => setValue(entry, input.checked, input));
  } else if (field.Type === 'Radio') {
    input.type = 'radio';
    input.name = domId('onpage', doc.FileId, field.Name);
    input.value = option.Value;
    input.setAttribute('aria-label', `${label}: ${option.Label || option.Value}`);
    input.addEventListener('change', () => input.checked && setValue(entry, input.value, input));
  } else {
    input.type = 'text';
    input.setAttribute('aria-label', label);
    if (field.Type === 'Number') input.inputMode = 'decimal';
    if (field.Type === 'Date') input.placeholder = 'YYYY-MM-DD';
    input.autocomplete = 'off';
    input.addEventListener('input', () => setValue(entry, input.value, input));
  }
  if (field.Tooltip) input.title = field.Tooltip;
  input.addEventListener('focus', () => {
    current = fillable.indexOf(entry);
    highlight(entry, true);
  });
  input.addEventListener('blur', () => highlight(entry, false));
  entry.controls.push(input);
  box.append(input);
  return box;
}

/**
 * The fields of page `n` as a form under it, closed until opened: the same fields with visible labels, hints and
 * errors in reading order, for keyboards and screen readers that prefer a list. Both stay in step.
 */
function renderFieldList(doc, entries, n) {
  const details = document.createElement('details');
  details.className = 'field-list';
  const summary = document.createElement('summary');
  summary.textContent = fmt(T.fieldsList, { n: number.format(n) });
  const box = document.createElement('fieldset');
  box.className = 'fields page-fields';
  const legend = document.createElement('legend');
  legend.textContent = fmt(T.fieldsOnPage, { n: number.format(n) });
  box.append(legend);
  details.append(summary, box);
  for (const entry of entries) {
    const { field } = entry;
    entry.list = details;
    const id = domId('field', doc.FileId, field.Name);
    const row = document.createElement(field.Type === 'Radio' ? 'fieldset' : 'div');
    row.className = field.Type === 'Check' ? 'check-row field-row' : 'field-row';
    const error = document.createElement('span');
    error.id = `${id}-error`;
    error.className = 'error field-error';
    error.hidden = true;
    const described = [error.id];
    const labelText = fieldLabel(field) + (field.Required ? ` (${T.required})` : '');
    const hints = [];
    if (field.Tooltip) hints.push(hint(`${id}-tooltip`, field.Tooltip));
    if (field.Type === 'Date') hints.push(hint(`${id}-hint`, fmt(T.dateHint, { example: new Date().toISOString().slice(0, 10) })));
    described.unshift(...hints.map((h) => h.id));
    if (field.Type === 'Radio') {
      const l = document.createElement('legend');
      l.textContent = labelText;
      row.append(l, ...hints);
      for (const [i, option] of (field.Options || []).entries()) {
        const item = document.createElement('div');
        item.className = 'check-row';
        const input = document.createElement('input');
        input.type = 'radio';
        input.id = `${id}-${i}`;
        input.name = id;
        input.value = option.Value;
        input.dataset.listField = field.Name;
        input.setAttribute('aria-describedby', described.join(' '));
        input.addEventListener('change', () => input.checked && setValue(entry, input.value, input));
        const label = document.createElement('label');
        label.htmlFor = input.id;
        label.textContent = option.Label || option.Value;
        if (option.Tooltip) label.title = option.Tooltip;
        item.append(input, label);
        row.append(item);
        entry.listControls.push(input);
      }
      row.append(error);
    } else {
      const input = document.createElement('input');
      input.id = id;
      input.dataset.listField = field.Name;
      const label = document.createElement('label');
      label.htmlFor = id;
      label.textContent = labelText;
      if (field.Type === 'Check') {
        input.type = 'checkbox';
        input.addEventListener('change', () => setValue(entry, input.checked, input));
        row.append(input, label, ...hints, error);
      } else {
        input.type = 'text';
        input.required = field.Required;
        if (field.Type === 'Number') input.inputMode = 'decimal';
        input.addEventListener('input', () => setValue(entry, input.value, input));
        row.append(label, ...hints, input, error);
      }
      input.setAttribute('aria-describedby', described.join(' '));
      entry.listControls.push(input);
    }
    for (const c of entry.controls) c.setAttribute('aria-describedby', described.join(' '));
    const next = document.createElement('button');
    next.type = 'button';
    next.className = 'button next-field';
    next.textContent = T.nextField;
    next.addEventListener('click', () => goToField(fillable.indexOf(entry) + 1));
    row.append(next);
    Object.assign(entry, { error, next });
    fillable.push(entry);
    box.append(row);
    // What the metadata (or the fillable PDF) sets beforehand: a ticked box, a chosen button, a pre-filled text.
    if (field.Type === 'Check') setValue(entry, field.Checked === true);
    else if (field.Value) setValue(entry, field.Value);
  }
  return details;
}

function hint(id, text) {
  const el = document.createElement('span');
  el.className = 'hint';
  el.id = id;
  el.textContent = text;
  return el;
}

/** Sets a field's value from one of its controls and brings its other controls (on the page, in the list) in step. */
function setValue(entry, value, from) {
  values[entry.fileId][entry.field.Name] = value;
  for (const c of [...entry.controls, ...entry.listControls]) {
    if (c === from) continue;
    if (c.type === 'checkbox') c.checked = value === true;
    else if (c.type === 'radio') c.checked = c.value === value;
    else c.value = value;
  }
  const done = isFilled(entry);
  const shown = entry.field.Type === 'Check' ? value === true : done;
  for (const o of overlaysOf(entry)) o.classList.toggle('filled', shown);
  if (done && entry.error) {
    clearError(entry.error);
    for (const c of [...entry.controls, ...entry.listControls]) c.removeAttribute('aria-invalid');
  }
  if (entry.next) numberFields();
}

function isFilled(entry) {
  const value = values[entry.fileId][entry.field.Name];
  if (entry.field.Type === 'Check') return true;
  return typeof value === 'string' && value.trim() !== '';
}

function overlaysOf(entry) {
  return [...document.querySelectorAll('.overlay')].filter((o) => o.dataset.fileId === entry.fileId && o.dataset.field === entry.field.Name);
}

function highlight(entry, on) {
  for (const o of overlaysOf(entry)) o.classList.toggle('active', on);
}

/** The next required field not yet filled in after the current one, else the next field. */
function nextIndex() {
  for (let i = 1; i <= fillable.length; i++) {
    const index = (current + i + fillable.length) % fillable.length;
    const entry = fillable[index];
    if (entry.field.Required && !isFilled(entry)) return index;
  }
  return -1;
}

function numberFields() {
  fillable.forEach((entry, i) => {
    entry.next.setAttribute('aria-label', `${T.nextField} (${fmt(T.fieldPosition, { n: number.format(Math.min(i + 2, fillable.length)), total: number.format(fillable.length), field: fieldLabel((fillable[i + 1] || fillable[0]).field) })})`);
  });
  $('next-field').hidden = fillable.length === 0;
}

/** Scrolls to field `index` on its page (wrapping around) and focuses its control there. */
function goToField(index) {
  if (fillable.length === 0) return;
  const i = ((index % fillable.length) + fillable.length) % fillable.length;
  const entry = fillable[i];
  const control = entry.controls.find((c) => c.checked) || entry.controls[0] || entry.listControls[0];
  control.focus({ preventScroll: true });
  control.scrollIntoView({ block: 'center', inline: 'center', behavior: reducedMotion.matches ? 'auto' : 'smooth' });
  current = i;
  announce(fmt(T.fieldPosition, { n: number.format(i + 1), total: number.format(fillable.length), field: fieldLabel(entry.field) }));
}

/** "Next field": the next required field still empty; when all are filled, the step the signer is at. */
function goToNextField() {
  const index = nextIndex();
  if (index >= 0) return goToField(index);
  announce(T.allFieldsDone);
  goToSigning();
}

/** The signature box on the page: on to the current signing step (consent, the signature, or Sign). */
function goToSigning() {
  const heading = [...document.querySelectorAll('#steps-title ~ .step:not([hidden]) h3')][0] || $('steps-title');
  heading.scrollIntoView({ block: 'start', behavior: reducedMotion.matches ? 'auto' : 'smooth' });
  heading.focus({ preventScroll: true });
}

function renderSteps(focus) {
  const steps = session.Verifications;
  const list = $('step-list');
  list.textContent = '';
  const current = steps.find((s) => !s.Done);
  const total = steps.length + 1;
  steps.forEach((s, i) => {
    const li = document.createElement('li');
    li.className = s.Done ? 'done' : s === current ? 'current' : '';
    li.textContent = stepName(s) + (s.Done ? ` — ${T.stepDone}` : '');
    li.setAttribute('aria-label', `${fmt(T.stepOf, { n: number.format(i + 1), total: number.format(total) })}: ${li.textContent}`);
    if (s === current) li.setAttribute('aria-current', 'step');
    list.append(li);
  });
  const last = document.createElement('li');
  last.textContent = T.readyHeading;
  last.setAttribute('aria-label', `${fmt(T.stepOf, { n: number.format(total), total: number.format(total) })}: ${T.readyHeading}`);
  if (!current) {
    last.className = 'current';
    last.setAttribute('aria-current', 'step');
  }
  list.append(last);
  for (const id of ['step-consent', 'step-scribble', 'step-code', 'step-external', 'step-sign']) $(id).hidden = true;
  let heading;
  if (!current) {
    $('step-sign').hidden = false;
    heading = $('sign-title');
  } else if (current.Type === 'Consent') {
    $('step-consent').hidden = false;
    heading = $('consent-title');
  } else if (current.Type === 'Scribble') {
    showScribble(current);
    heading = $('scribble-title');
  } else if (current.Type === 'PhoneNumber' || current.Type === 'Email') {
    showCode(current);
    heading = $('code-title');
  } else {
    // An external identity method: the provider's page, then back here.
    $('step-external').hidden = false;
    $('external-title').textContent = fmt(T.externalHeading, { type: current.Type });
    $('external-go').textContent = fmt(T.externalButton, { type: current.Type });
    $('external-go').dataset.type = current.Type;
    heading = $('external-title');
  }
  if (focus) heading.focus();
}

function stepName(s) {
  return { Consent: T.consentHeading, Scribble: T.scribbleHeading, PhoneNumber: T.phoneHeading, Email: T.emailHeading }[s.Type] || s.Type;
}

async function verify(body, errorEl, input) {
  if (errorEl) clearError(errorEl, input);
  try {
    const result = await request('POST', '/verification', body);
    if (result.Done) {
      const before = session.State;
      const done = session.Verifications.find((s) => !s.Done);
      session = await request('GET', '');
      const next = session.Verifications.find((s) => !s.Done);
      announce(`${fmt(T.stepCompleted, { step: done ? stepName(done) : '' })} ${next ? stepName(next) : T.readyHeading}.`);
      renderSteps(true);
      // Documents are shown once the authentications are done (docs/design/signer-api.md#authentications).
      if (before === 'authenticate' && session.State !== 'authenticate') await renderDocuments(session.Documents);
    }
    return result;
  } catch (error) {
    if (errorEl) showError(errorEl, error.message, input);
    throw error;
  }
}

function showScribble(step) {
  $('step-scribble').hidden = false;
  const name = $('scribble-name');
  if (!name.value) name.value = session.ScribbleName || '';
  name.readOnly = Boolean(step.ScribbleNameFixed && session.ScribbleName);
  if (step.RequireHandsignature) {
    $('mode-type').hidden = true;
    selectMode(false);
  }
  drawTyped();
}

function ensurePad() {
  if (pad) return;
  const canvas = $('pad');
  pad = new window.SignaturePad(canvas, { penColor: INK, minWidth: 1, maxWidth: 3 });
  const resize = () => {
    const ratio = Math.max(window.devicePixelRatio || 1, 1);
    const data = pad.toData();
    canvas.width = canvas.offsetWidth * ratio;
    canvas.height = canvas.offsetHeight * ratio;
    canvas.getContext('2d').scale(ratio, ratio);
    pad.clear();
    pad.fromData(data);
  };
  window.addEventListener('resize', resize);
  resize();
}

function typing() {
  return $('mode-type').getAttribute('aria-pressed') === 'true';
}

function selectMode(type) {
  $('mode-type').setAttribute('aria-pressed', String(type));
  $('mode-draw').setAttribute('aria-pressed', String(!type));
  $('panel-type').hidden = !type;
  $('panel-draw').hidden = type;
  clearError($('scribble-error'), $('scribble-name'));
  if (!type) ensurePad();
}

/** Draws the typed name in the script font onto the preview canvas, shrinking it to fit. */
async function drawTyped() {
  const canvas = $('typed-canvas');
  const name = $('scribble-name').value.trim();
  canvas.setAttribute('aria-label', name ? fmt(T.typedPreview, { name }) : T.nameMissing);
  try {
    await document.fonts.load(`96px ${SIGNATURE_FONT}`, name || 'a');
  } catch {
    // the fallback cursive font draws it
  }
  const ctx = canvas.getContext('2d');
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.strokeStyle = '#b8c0cc';
  ctx.setLineDash([8, 8]);
  ctx.beginPath();
  ctx.moveTo(48, canvas.height - 70);
  ctx.lineTo(canvas.width - 48, canvas.height - 70);
  ctx.stroke();
  if (!name) return;
  let size = 150;
  ctx.font = `${size}px ${SIGNATURE_FONT}`;
  while (size > 24 && ctx.measureText(name).width > canvas.width - 96) {
    size -= 6;
    ctx.font = `${size}px ${SIGNATURE_FONT}`;
  }
  ctx.fillStyle = INK;
  ctx.textBaseline = 'alphabetic';
  ctx.fillText(name, 48, canvas.height - 80);
}

/** The typed signature as a transparent PNG cropped to the ink (the baseline guide is not part of it). */
function typedImage() {
  const source = $('typed-canvas');
  const out = document.createElement('canvas');
  out.width = source.width;
  out.height = source.height;
  const ctx = out.getContext('2d');
  let size = 150;
  const name = $('scribble-name').value.trim();
  ctx.font = `${size}px ${SIGNATURE_FONT}`;
  while (size > 24 && ctx.measureText(name).width > out.width - 96) {
    size -= 6;
    ctx.font = `${size}px ${SIGNATURE_FONT}`;
  }
  ctx.fillStyle = INK;
  ctx.fillText(name, 48, out.height - 80);
  return out.toDataURL('image/png');
}

function showCode(step) {
  $('step-code').hidden = false;
  $('code-title').textContent = stepName(step);
  $('code-info').textContent = step.CodeSent ? fmt(T.codeSent, { to: step.SentTo }) : fmt(T.codeSendTo, { to: step.SentTo });
  $('code-entry').hidden = !step.CodeSent;
  $('code-send').textContent = step.CodeSent ? T.resendCode : T.sendCode;
  $('code-send').dataset.type = step.Type;
  $('code-verify').dataset.type = step.Type;
}

function missingFields() {
  const missing = [];
  for (const entry of fillable) {
    if (!entry.field.Required || isFilled(entry)) continue;
    showError(entry.error, fmt(T.fieldMissing, { field: fieldLabel(entry.field) }));
    for (const c of [...entry.controls, ...entry.listControls]) c.setAttribute('aria-invalid', 'true');
    // The list under the page opens, so the message is seen next to the field's label too.
    entry.list.open = true;
    missing.push(entry);
  }
  return missing;
}

function wire() {
  $('zoom-in').addEventListener('click', () => setZoom(zoom * ZOOM_STEP));
  $('zoom-out').addEventListener('click', () => setZoom(zoom / ZOOM_STEP));
  $('zoom-fit').addEventListener('click', () => setZoom(1));
  $('next-field').addEventListener('click', goToNextField);
  let resizeTimer;
  // A turned phone or a resized window: "fit width" is another width, the pages are sized and drawn anew.
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const p of shownPages) sizePage(p);
      redrawPages();
    }, 200);
  });
  $('consent-confirm').addEventListener('click', () => {
    if (!$('consent-box').checked) {
      showError($('consent-error'), T.consentMissing, $('consent-box'));
      $('consent-box').focus();
      return;
    }
    verify({ Type: 'Consent' }, $('consent-error'), $('consent-box')).catch(() => {});
  });
  $('consent-box').addEventListener('change', () => {
    if ($('consent-box').checked) clearError($('consent-error'), $('consent-box'));
  });
  $('mode-type').addEventListener('click', () => selectMode(true));
  $('mode-draw').addEventListener('click', () => selectMode(false));
  let announceTimer;
  $('scribble-name').addEventListener('input', () => {
    drawTyped();
    const name = $('scribble-name').value.trim();
    if (name) clearError($('scribble-error'), $('scribble-name'));
    clearTimeout(announceTimer);
    if (typing() && name) announceTimer = setTimeout(() => announce(fmt(T.typedAnnouncement, { name })), 900);
  });
  $('pad-clear').addEventListener('click', () => pad?.clear());
  $('pad-undo').addEventListener('click', () => {
    const data = pad?.toData() || [];
    data.pop();
    pad?.fromData(data);
  });
  $('scribble-confirm').addEventListener('click', () => {
    // The name is final: a pending "now reads" announcement would only talk over the step's result.
    clearTimeout(announceTimer);
    const nameInput = $('scribble-name');
    const name = nameInput.value.trim();
    const body = { Type: 'Scribble', Name: name };
    if (typing()) {
      if (!name) {
        showError($('scribble-error'), T.nameMissing, nameInput);
        nameInput.focus();
        return;
      }
      body.Image = typedImage();
    } else {
      if (!pad || pad.isEmpty()) {
        showError($('scribble-error'), T.drawFirst);
        $('mode-type').hidden ? $('pad-clear').focus() : $('mode-type').focus();
        return;
      }
      body.Image = pad.toDataURL('image/png');
    }
    verify(body, $('scribble-error'), nameInput).catch(() => {});
  });
  $('code-send').addEventListener('click', async () => {
    const type = $('code-send').dataset.type;
    try {
      await verify({ Type: type }, $('code-error'), $('code-input'));
      session = await request('GET', '');
      renderSteps();
      announce($('code-info').textContent);
      $('code-input').focus();
    } catch {
      $('code-entry').hidden = false;
    }
  });
  const submitCode = () => {
    const input = $('code-input');
    const code = input.value.trim();
    if (!/^[0-9]{6}$/.test(code)) {
      showError($('code-error'), T.codeFormat, input);
      input.focus();
      return;
    }
    verify({ Type: $('code-verify').dataset.type, Code: code }, $('code-error'), input)
      .then(() => (input.value = ''))
      .catch(() => input.select());
  };
  $('code-verify').addEventListener('click', submitCode);
  $('code-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') submitCode();
  });
  $('external-go').addEventListener('click', async () => {
    try {
      const result = await verify({ Type: $('external-go').dataset.type }, $('external-error'));
      if (result.RedirectUrl) location.assign(result.RedirectUrl);
    } catch {
      // shown in external-error
    }
  });
  $('sign-button').addEventListener('click', async () => {
    clearError($('sign-error'));
    const missing = missingFields();
    if (missing.length > 0) {
      showError($('sign-error'), fmt(T.fieldsMissing, { fields: listFormat.format(missing.map((m) => fieldLabel(m.field))) }));
      goToField(fillable.indexOf(missing[0]));
      return;
    }
    $('sign-button').disabled = true;
    $('sign-button').setAttribute('aria-busy', 'true');
    announce(T.signing);
    try {
      const result = await request('POST', '/sign', { Fields: values });
      finish('signed', result.ReturnUrl, result.TransactionStatus === STATUS_SIGNED);
    } catch (error) {
      showError($('sign-error'), error.message);
      $('sign-button').disabled = false;
      $('sign-button').focus();
    } finally {
      $('sign-button').removeAttribute('aria-busy');
    }
  });
  $('reject-open').addEventListener('click', () => {
    const form = $('reject-form');
    form.hidden = !form.hidden;
    $('reject-open').setAttribute('aria-expanded', String(!form.hidden));
    if (!form.hidden) $('reject-reason').focus();
  });
  $('reject-cancel').addEventListener('click', () => {
    $('reject-form').hidden = true;
    $('reject-open').setAttribute('aria-expanded', 'false');
    $('reject-open').focus();
  });
  $('reject-confirm').addEventListener('click', async () => {
    try {
      const result = await request('POST', '/reject', { Reason: $('reject-reason').value });
      finish('rejected', result.ReturnUrl);
    } catch (error) {
      showError($('reject-error'), error.message, $('reject-reason'));
    }
  });
}

wire();
load();
