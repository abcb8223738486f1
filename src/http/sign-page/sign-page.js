// The signing page's script (issue 6): drives the signer JSON API (decisions.md §6) — session, documents shown page
// by page with pdf.js and the signer's fields highlighted, verification steps, signature pad, sign, reject, final
// screen and ReturnUrl redirect. No dependencies besides pdf.js and signature_pad, both served by paraph.
import * as pdfjs from '/sign/assets/pdf.min.mjs';

pdfjs.GlobalWorkerOptions.workerSrc = '/sign/assets/pdf.worker.min.mjs';

const T = JSON.parse(document.body.dataset.texts || '{}');
const token = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] || '');
const api = `/api/signer/${encodeURIComponent(token)}`;
const $ = (id) => document.getElementById(id);
const fmt = (text, values) => text.replace(/\{(\w+)\}/g, (_, k) => (values[k] ?? ''));

let session;
let pad;
/** Values the signer entered: fileId → field name → value. */
const values = {};

async function request(method, path, body) {
  const response = await fetch(api + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'omit',
  });
  const json = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(json.Message || response.statusText);
    error.status = response.status;
    throw error;
  }
  return json;
}

function showMessage(title, text, link) {
  $('loading').hidden = true;
  $('journey').hidden = true;
  $('message').hidden = false;
  $('message-title').textContent = title;
  $('message-text').textContent = text;
  const a = $('message-link');
  if (link) {
    a.hidden = false;
    a.href = link;
    a.textContent = T.continue;
  } else a.hidden = true;
  $('message-title').focus?.();
}

function finish(state, returnUrl, complete) {
  const signed = state === 'signed';
  showMessage(signed ? T.signedHeading : T.rejectedHeading, signed ? (complete ? T.signedAllText : T.signedText) : T.rejectedText, returnUrl);
  $('message').classList.add(signed ? 'success' : 'neutral');
  if (returnUrl) {
    $('message-text').textContent += ' ' + T.redirecting;
    setTimeout(() => location.assign(returnUrl), 2500);
  }
}

async function load() {
  try {
    session = await request('GET', '');
  } catch (error) {
    showMessage(T.errorHeading, error.message);
    return;
  }
  const s = session;
  if (s.Reference) {
    $('ref').textContent = `${T.reference}: ${s.Reference}`;
  }
  switch (s.State) {
    case 'signed':
    case 'rejected':
      return finish(s.State, s.ReturnUrl, s.TransactionStatus === 30);
    case 'waiting':
      return showMessage(T.waitingHeading, fmt(T.waitingText, { names: s.WaitingFor.map((w) => w.Name).join(', ') }));
    case 'not-started':
      return showMessage(T.notStartedHeading, T.notStartedText);
    case 'ended':
      return showMessage(T.endedHeading, '');
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
  await renderDocuments(s.Documents);
  renderSteps();
}

async function renderDocuments(documents) {
  const host = $('documents');
  host.textContent = '';
  $('documents-title').hidden = documents.length === 0;
  for (const doc of documents) {
    const card = document.createElement('article');
    card.className = 'card document';
    card.dataset.fileId = doc.FileId;
    const h = document.createElement('h3');
    h.textContent = doc.DisplayName;
    const meta = document.createElement('p');
    meta.className = 'muted small';
    meta.textContent = doc.Pages === 1 ? T.onePage : fmt(T.pages, { n: doc.Pages });
    card.append(h, meta);
    if (doc.Description) {
      const d = document.createElement('p');
      d.textContent = doc.Description;
      card.append(d);
    }
    const pages = document.createElement('div');
    pages.className = 'pages';
    card.append(pages);
    const fillable = doc.Fields.filter((f) => f.type !== 'Signature' && f.type !== 'Seal');
    if (fillable.length > 0) card.append(renderFieldInputs(doc, fillable));
    host.append(card);
    await renderPdf(doc, pages);
  }
}

function renderFieldInputs(doc, fields) {
  const box = document.createElement('fieldset');
  box.className = 'fields';
  const legend = document.createElement('legend');
  legend.textContent = T.fieldsToFill;
  box.append(legend);
  values[doc.FileId] = {};
  fields.forEach((field, i) => {
    const id = `field-${doc.FileId}-${i}`.replace(/[^A-Za-z0-9_-]/g, '_');
    const row = document.createElement('p');
    row.className = field.type === 'Check' ? 'check-row' : 'field-row';
    const label = document.createElement('label');
    label.htmlFor = id;
    const page = field.widgets[0] ? ` (${fmt(T.fieldOnPage, { n: field.widgets[0].pageNumber })})` : '';
    label.textContent = field.name.split('.').pop().replace(/_/g, ' ') + page + (field.required ? ` — ${T.required}` : '');
    const input = document.createElement('input');
    input.id = id;
    input.dataset.field = field.name;
    if (field.type === 'Check') {
      input.type = 'checkbox';
      values[doc.FileId][field.name] = false;
      input.addEventListener('change', () => {
        values[doc.FileId][field.name] = input.checked;
        syncOverlay(doc.FileId, field.name, input.checked ? '✓' : '');
      });
      row.append(input, label);
    } else {
      input.type = 'text';
      if (field.type === 'Date') {
        input.placeholder = 'YYYY-MM-DD';
        input.inputMode = 'numeric';
      }
      if (field.type === 'Number') input.inputMode = 'decimal';
      input.required = field.required;
      input.value = field.value || '';
      if (field.value) values[doc.FileId][field.name] = field.value;
      input.addEventListener('input', () => {
        values[doc.FileId][field.name] = input.value;
        syncOverlay(doc.FileId, field.name, input.value);
      });
      row.append(label, input);
    }
    box.append(row);
  });
  return box;
}

function syncOverlay(fileId, name, text) {
  for (const el of document.querySelectorAll('.overlay')) {
    if (el.dataset.fileId === fileId && el.dataset.field === name) el.textContent = text;
  }
}

async function renderPdf(doc, host) {
  const response = await fetch(`${api}/file/${encodeURIComponent(doc.FileId)}`, { credentials: 'omit' });
  const data = new Uint8Array(await response.arrayBuffer());
  const pdf = await pdfjs.getDocument({ data, isEvalSupported: false, standardFontDataUrl: '/sign/assets/standard_fonts/' }).promise;
  const width = Math.min(host.clientWidth || 800, 820);
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n);
    const base = page.getViewport({ scale: 1 });
    const scale = width / base.width;
    const viewport = page.getViewport({ scale: scale * (window.devicePixelRatio || 1) });
    const wrap = document.createElement('figure');
    wrap.className = 'page';
    wrap.style.width = `${width}px`;
    wrap.style.height = `${base.height * scale}px`;
    const canvas = document.createElement('canvas');
    canvas.width = viewport.width;
    canvas.height = viewport.height;
    canvas.setAttribute('role', 'img');
    canvas.setAttribute('aria-label', `${doc.DisplayName} — ${fmt(T.page, { n, total: pdf.numPages })}`);
    wrap.append(canvas);
    const caption = document.createElement('figcaption');
    caption.textContent = fmt(T.page, { n, total: pdf.numPages });
    host.append(wrap, caption);
    await page.render({ canvasContext: canvas.getContext('2d'), viewport, canvas }).promise;
    for (const field of doc.Fields) {
      for (const w of field.widgets) {
        if (w.pageNumber !== n) continue;
        const o = document.createElement('div');
        o.className = `overlay overlay-${field.type.toLowerCase()}`;
        o.dataset.fileId = doc.FileId;
        o.dataset.field = field.name;
        o.style.left = `${w.left * scale}px`;
        o.style.top = `${w.top * scale}px`;
        o.style.width = `${w.width * scale}px`;
        o.style.height = `${w.height * scale}px`;
        o.title = field.name;
        o.addEventListener('click', () => document.querySelector(`input[data-field="${CSS.escape(field.name)}"]`)?.focus());
        wrap.append(o);
      }
    }
  }
}

function renderSteps() {
  const steps = session.Verifications;
  const list = $('step-list');
  list.textContent = '';
  const current = steps.find((s) => !s.Done);
  steps.forEach((s, i) => {
    const li = document.createElement('li');
    li.className = s.Done ? 'done' : s === current ? 'current' : '';
    li.textContent = stepName(s) + (s.Done ? ` — ${T.stepDone}` : '');
    if (s === current) li.setAttribute('aria-current', 'step');
    list.append(li);
    void i;
  });
  for (const id of ['step-consent', 'step-scribble', 'step-code', 'step-external', 'step-sign']) $(id).hidden = true;
  if (!current) {
    $('step-sign').hidden = false;
    return;
  }
  if (current.Type === 'Consent') $('step-consent').hidden = false;
  else if (current.Type === 'Scribble') showScribble(current);
  else if (current.Type === 'PhoneNumber' || current.Type === 'Email') showCode(current);
  else {
    // An external identity method: the provider's page, then back here.
    $('step-external').hidden = false;
    $('external-title').textContent = fmt(T.externalHeading, { type: current.Type });
    $('external-go').textContent = fmt(T.externalButton, { type: current.Type });
    $('external-go').dataset.type = current.Type;
  }
}

function stepName(s) {
  return { Consent: T.consentHeading, Scribble: T.scribbleHeading, PhoneNumber: T.phoneHeading, Email: T.emailHeading }[s.Type] || s.Type;
}

async function verify(body, errorEl) {
  try {
    if (errorEl) errorEl.hidden = true;
    const result = await request('POST', '/verification', body);
    if (result.Done) {
      const before = session.State;
      session = await request('GET', '');
      // Documents are shown once the authentications are done (decisions.md §6).
      if (before === 'authenticate' && session.State !== 'authenticate') await renderDocuments(session.Documents);
      renderSteps();
    }
    return result;
  } catch (error) {
    if (errorEl) {
      errorEl.hidden = false;
      errorEl.textContent = error.message;
    }
    throw error;
  }
}

function showScribble(step) {
  $('step-scribble').hidden = false;
  const name = $('scribble-name');
  if (!name.value) name.value = session.ScribbleName || '';
  name.readOnly = Boolean(step.ScribbleNameFixed && session.ScribbleName);
  $('tab-type').hidden = Boolean(step.RequireHandsignature);
  if (!pad) {
    const canvas = $('pad');
    pad = new window.SignaturePad(canvas, { penColor: '#0b1f66', minWidth: 1, maxWidth: 3 });
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
}

function selectTab(draw) {
  $('tab-draw').setAttribute('aria-selected', String(draw));
  $('tab-type').setAttribute('aria-selected', String(!draw));
  $('panel-draw').hidden = !draw;
  $('panel-type').hidden = draw;
  $('typed-preview').textContent = $('scribble-name').value;
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

function wire() {
  $('consent-box').addEventListener('change', () => ($('consent-confirm').disabled = !$('consent-box').checked));
  $('consent-confirm').addEventListener('click', () => verify({ Type: 'Consent' }).catch(() => {}));
  $('tab-draw').addEventListener('click', () => selectTab(true));
  $('tab-type').addEventListener('click', () => selectTab(false));
  $('scribble-name').addEventListener('input', () => ($('typed-preview').textContent = $('scribble-name').value));
  $('pad-clear').addEventListener('click', () => pad?.clear());
  $('pad-undo').addEventListener('click', () => {
    const data = pad?.toData() || [];
    data.pop();
    pad?.fromData(data);
  });
  $('scribble-confirm').addEventListener('click', () => {
    const drawing = !$('panel-draw').hidden;
    const body = { Type: 'Scribble', Name: $('scribble-name').value };
    if (drawing) {
      if (!pad || pad.isEmpty()) {
        $('scribble-error').hidden = false;
        $('scribble-error').textContent = T.drawFirst;
        return;
      }
      body.Image = pad.toDataURL('image/png');
    }
    verify(body, $('scribble-error')).catch(() => {});
  });
  $('code-send').addEventListener('click', async () => {
    const type = $('code-send').dataset.type;
    try {
      await verify({ Type: type }, $('code-error'));
      session = await request('GET', '');
      renderSteps();
      $('code-input').focus();
    } catch {
      $('code-entry').hidden = false;
    }
  });
  const submitCode = () => {
    verify({ Type: $('code-verify').dataset.type, Code: $('code-input').value.trim() }, $('code-error'))
      .then(() => ($('code-input').value = ''))
      .catch(() => $('code-input').select());
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
    $('sign-button').disabled = true;
    $('sign-busy').hidden = false;
    $('sign-error').hidden = true;
    try {
      const result = await request('POST', '/sign', { Fields: values });
      finish('signed', result.ReturnUrl, result.TransactionStatus === 30);
    } catch (error) {
      $('sign-error').hidden = false;
      $('sign-error').textContent = error.message;
      $('sign-button').disabled = false;
    } finally {
      $('sign-busy').hidden = true;
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
      $('reject-error').hidden = false;
      $('reject-error').textContent = error.message;
    }
  });
}

wire();
load();
