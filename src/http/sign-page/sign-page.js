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
/** The fillable fields in page order: { fileId, field, input, overlays[] }. */
let fillable = [];

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

/** Who asks: the organisation in the banner of every state, and the sender with their address above the documents. */
function showSender(sender) {
  if (!sender) return;
  $('org').textContent = sender.Organization;
  $('org').hidden = false;
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
  $('documents-title').hidden = documents.length === 0;
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

function fieldLabel(field) {
  return field.Name.split('.').pop().replace(/_/g, ' ');
}

async function renderPdf(doc, host) {
  const pdfjs = await loadPdfjs();
  const response = await fetch(`${api}/file/${encodeURIComponent(doc.FileId)}`, { credentials: 'omit' });
  // Rejected, signed or withdrawn meanwhile: the page has moved on to its message.
  if (!response.ok) return;
  const data = new Uint8Array(await response.arrayBuffer());
  const pdf = await pdfjs.getDocument({ data, isEvalSupported: false, standardFontDataUrl: asset('standard_fonts/') }).promise;
  const width = Math.min(host.clientWidth || 800, 820);
  const fields = doc.Fields.filter((f) => f.Type !== 'Signature' && f.Type !== 'Seal');
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const scale = width / base.width;
    const ratio = window.devicePixelRatio || 1;
    const viewport = page.getViewport({ scale: scale * ratio });
    const wrap = document.createElement('figure');
    wrap.className = 'page';
    wrap.style.width = `${width}px`;
    wrap.style.height = `${base.height * scale}px`;
    const captionId = domId('caption', doc.FileId, n);
    wrap.setAttribute('aria-labelledby', captionId);
    const canvas = document.createElement('canvas');
    canvas.width = viewport.width;
    canvas.height = viewport.height;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', fmt(T.pageImage, { name: doc.DisplayName, n: number.format(n), total: number.format(pdf.numPages) }));
    const text = document.createElement('div');
    text.className = 'textLayer';
    text.style.setProperty('--total-scale-factor', String(scale));
    text.style.setProperty('--scale-round-x', '1px');
    text.style.setProperty('--scale-round-y', '1px');
    wrap.append(canvas, text);
    const caption = document.createElement('figcaption');
    caption.id = captionId;
    caption.textContent = fmt(T.page, { n: number.format(n), total: number.format(pdf.numPages) });
    host.append(wrap, caption);
    await page.render({ canvasContext: canvas.getContext('2d'), viewport, canvas }).promise;
    await new pdfjs.TextLayer({ textContentSource: page.streamTextContent(), container: text, viewport: page.getViewport({ scale }) }).render();
    if (performance.getEntriesByName('paraph:first-page').length === 0) performance.mark('paraph:first-page');

    const onPage = [];
    for (const field of doc.Fields) {
      for (const w of field.Widgets) {
        if (w.PageNumber !== n) continue;
        const o = document.createElement('div');
        o.className = `overlay overlay-${field.Type.toLowerCase()}`;
        o.setAttribute('aria-hidden', 'true');
        o.dataset.fileId = doc.FileId;
        o.dataset.field = field.Name;
        o.style.left = `${w.Left * scale}px`;
        o.style.top = `${w.Top * scale}px`;
        o.style.width = `${w.Width * scale}px`;
        o.style.height = `${w.Height * scale}px`;
        wrap.append(o);
        if (fields.includes(field) && !onPage.includes(field)) onPage.push(field);
      }
    }
    if (onPage.length > 0) host.append(renderFieldInputs(doc, onPage, n));
  }
}

/** The inputs of the fields on page `n`, right below it. */
function renderFieldInputs(doc, fields, n) {
  const box = document.createElement('fieldset');
  box.className = 'fields page-fields';
  const legend = document.createElement('legend');
  legend.textContent = fmt(T.fieldsOnPage, { n: number.format(n) });
  box.append(legend);
  for (const field of fields) {
    const id = domId('field', doc.FileId, field.Name);
    const row = document.createElement('div');
    row.className = field.Type === 'Check' ? 'check-row field-row' : 'field-row';
    const label = document.createElement('label');
    label.htmlFor = id;
    label.textContent = fieldLabel(field) + (field.Required ? ` (${T.required})` : '');
    const input = document.createElement('input');
    input.id = id;
    input.dataset.field = field.Name;
    input.dataset.fileId = doc.FileId;
    const error = document.createElement('span');
    error.id = `${id}-error`;
    error.className = 'error field-error';
    error.hidden = true;
    const described = [error.id];
    if (field.Type === 'Check') {
      input.type = 'checkbox';
      // A box the metadata (or the fillable PDF) ticks beforehand starts ticked, and stays so unless the signer unticks it.
      input.checked = field.Checked === true;
      values[doc.FileId][field.Name] = input.checked;
      if (input.checked) syncOverlay(doc.FileId, field.Name, '✓');
      input.addEventListener('change', () => {
        values[doc.FileId][field.Name] = input.checked;
        syncOverlay(doc.FileId, field.Name, input.checked ? '✓' : '');
      });
      row.append(input, label, error);
    } else {
      input.type = 'text';
      const parts = [label];
      if (field.Type === 'Date') {
        const hint = document.createElement('span');
        hint.className = 'hint';
        hint.id = `${id}-hint`;
        hint.textContent = fmt(T.dateHint, { example: new Date().toISOString().slice(0, 10) });
        described.unshift(hint.id);
        parts.push(hint);
      }
      if (field.Type === 'Number') input.inputMode = 'decimal';
      input.required = field.Required;
      input.value = field.Value || '';
      if (field.Value) values[doc.FileId][field.Name] = field.Value;
      input.addEventListener('input', () => {
        values[doc.FileId][field.Name] = input.value;
        syncOverlay(doc.FileId, field.Name, input.value);
        if (input.value.trim() !== '') clearError(error, input);
      });
      row.append(...parts, input, error);
    }
    input.setAttribute('aria-describedby', described.join(' '));
    const next = document.createElement('button');
    next.type = 'button';
    next.className = 'button next-field';
    next.textContent = T.nextField;
    const entry = { fileId: doc.FileId, field, input, error, next };
    next.addEventListener('click', () => goToField(fillable.indexOf(entry) + 1));
    input.addEventListener('focus', () => highlight(entry, true));
    input.addEventListener('blur', () => highlight(entry, false));
    row.append(next);
    fillable.push(entry);
    box.append(row);
  }
  return box;
}

function overlaysOf(entry) {
  return [...document.querySelectorAll('.overlay')].filter((o) => o.dataset.fileId === entry.fileId && o.dataset.field === entry.field.Name);
}

function highlight(entry, on) {
  for (const o of overlaysOf(entry)) o.classList.toggle('active', on);
}

function numberFields() {
  fillable.forEach((entry, i) => {
    entry.next.setAttribute('aria-label', `${T.nextField} (${fmt(T.fieldPosition, { n: number.format(Math.min(i + 2, fillable.length)), total: number.format(fillable.length), field: fieldLabel((fillable[i + 1] || fillable[0]).field) })})`);
  });
}

/** Scrolls to field `index` on its page (wrapping around) and focuses its input, keeping the input in view. */
function goToField(index) {
  if (fillable.length === 0) return;
  const entry = fillable[index % fillable.length];
  const overlay = overlaysOf(entry)[0];
  const behavior = reducedMotion.matches ? 'auto' : 'smooth';
  overlay?.scrollIntoView({ block: 'center', behavior: 'auto' });
  entry.input.focus({ preventScroll: true });
  entry.input.scrollIntoView({ block: 'nearest', behavior });
  announce(fmt(T.fieldPosition, { n: number.format((index % fillable.length) + 1), total: number.format(fillable.length), field: fieldLabel(entry.field) }));
}

function syncOverlay(fileId, name, text) {
  for (const el of document.querySelectorAll('.overlay')) {
    if (el.dataset.fileId === fileId && el.dataset.field === name) {
      el.textContent = text;
      el.classList.toggle('filled', text !== '');
    }
  }
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
    if (!entry.field.Required || entry.input.type === 'checkbox') continue;
    if (entry.input.value.trim() === '') {
      showError(entry.error, fmt(T.fieldMissing, { field: fieldLabel(entry.field) }), entry.input);
      missing.push(entry);
    }
  }
  return missing;
}

function wire() {
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
