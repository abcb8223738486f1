/**
 * The HTML of the signing page: one server-rendered document whose sections the page script shows
 * one at a time — loading, status messages (waiting, ended, …), the documents, the verification steps (consent, a
 * typed-name signature rendered in the bundled script font or a drawn one, phone/e-mail code), sign and reject, and
 * the final screen. WCAG 2.2 AA: landmarks, a skip link, one h1 per state, every control labelled and described,
 * errors tied to their fields, a polite live region for what happens asynchronously. Texts come from the signer's
 * language catalogue and are HTML-escaped; no inline script or style (the CSP forbids them).
 */
import { apiErrorTable } from './sign-page-error-texts.js';
import type { SignPageTexts } from './sign-page-texts.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * The document head and the top of the body (skip link and banner) every page shares. `root` is the way from the
 * page's URL to the service's root as a relative URL (`../` for `/sign/<token>`): every link, asset and API call of
 * the pages goes through it, so they work wherever the service is mounted (a host's prefix, a sub-path proxy).
 */
export function pageTop(t: SignPageTexts, title: string, root: string, bodyAttributes = ''): string {
  const e = escapeHtml;
  return `<!doctype html>
<html lang="${e(t.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${e(title)}</title>
<link rel="stylesheet" href="${e(root)}sign/assets/sign-page.css">
</head>
<body${bodyAttributes} data-root="${e(root)}" data-api-errors="${e(apiErrorTable(t))}">
<a class="skip-link" href="#main">${e(t.skipLink)}</a>
<header class="topbar"><div class="topbar-inner"><span class="logo" aria-hidden="true">✎</span><span class="brand">${e(t.brand)}</span><img class="org-logo" id="org-logo" alt="" hidden><span class="org" id="org" hidden></span><span class="lock" id="ref"></span></div></header>`;
}

/** The signing page of `token`, served at `/sign/<token>` (`root` as for {@link pageTop}). */
export function renderSignPage(t: SignPageTexts, token: string, root: string): string {
  const e = escapeHtml;
  return `${pageTop(t, t.title, root, ` data-token="${e(token)}" data-texts="${e(JSON.stringify(t))}"`)}
<main id="main" class="container" tabindex="-1">
  <p id="loading" class="card muted" role="status">${e(t.loading)}</p>
  <div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
  <section id="message" class="card message" hidden aria-labelledby="message-title">
    <h1 id="message-title" tabindex="-1"></h1>
    <p id="message-text"></p>
    <div class="row"><a id="message-link" class="button primary" hidden></a><a id="message-show" class="button" hidden>${e(t.viewDocuments)}</a><a id="message-receipt" class="button" hidden>${e(t.receiptLink)}</a></div>
  </section>

  <div id="journey" hidden>
    <section class="card intro" aria-labelledby="greeting">
      <p id="request-from" class="request-from"></p>
      <h1 id="greeting" tabindex="-1"></h1>
      <p id="sender" class="muted small" hidden></p>
      <p id="intro-text">${e(t.intro)}</p>
      <p id="reference" class="muted" hidden></p>
      <p><a href="#steps-title" class="button">${e(t.toSteps)}</a></p>
    </section>

    <section aria-labelledby="documents-title">
      <h2 class="section-title" id="documents-title">${e(t.documents)}</h2>
      <div id="viewer-bar" class="viewer-bar" role="group" aria-label="${e(t.zoomGroup)}" hidden>
        <button type="button" id="zoom-out" class="button icon" aria-label="${e(t.zoomOut)}" title="${e(t.zoomOut)}">−</button>
        <span id="zoom-level" class="zoom-level" role="status">100 %</span>
        <button type="button" id="zoom-in" class="button icon" aria-label="${e(t.zoomIn)}" title="${e(t.zoomIn)}">+</button>
        <button type="button" id="zoom-fit" class="button">${e(t.zoomFit)}</button>
        <button type="button" id="next-field" class="button primary" hidden>${e(t.nextField)}</button>
      </div>
      <div id="documents"></div>
    </section>

    <section class="card steps" aria-labelledby="steps-title">
      <h2 id="steps-title" tabindex="-1">${e(t.stepsHeading)}</h2>
      <ol id="step-list" class="step-list"></ol>

      <div id="step-consent" class="step" hidden>
        <h3 id="consent-title" tabindex="-1">${e(t.consentHeading)}</h3>
        <p class="check-row"><input type="checkbox" id="consent-box" aria-describedby="consent-error"><label for="consent-box">${e(t.consentLabel)}</label></p>
        <p id="consent-error" class="error" hidden></p>
        <button type="button" id="consent-confirm" class="button primary">${e(t.confirm)}</button>
      </div>

      <div id="step-scribble" class="step" hidden>
        <h3 id="scribble-title" tabindex="-1">${e(t.scribbleHeading)}</h3>
        <p id="signature-help">${e(t.signatureHelp)}</p>
        <p><label for="scribble-name">${e(t.nameLabel)}</label><input type="text" id="scribble-name" autocomplete="name" maxlength="255" aria-describedby="signature-help scribble-error"></p>
        <div class="row" role="group" aria-labelledby="scribble-title">
          <button type="button" id="mode-type" class="button toggle" aria-pressed="true" aria-controls="panel-type">${e(t.typeMode)}</button>
          <button type="button" id="mode-draw" class="button toggle" aria-pressed="false" aria-controls="panel-draw">${e(t.drawMode)}</button>
        </div>
        <div id="panel-type">
          <div class="typed-wrap"><canvas id="typed-canvas" class="typed-canvas" width="1200" height="300" role="img" aria-label=""></canvas></div>
        </div>
        <div id="panel-draw" hidden>
          <p class="muted" id="pad-help">${e(t.padHelp)}</p>
          <div class="pad-wrap"><canvas id="pad" aria-label="${e(t.padLabel)}" aria-describedby="pad-help" role="img"></canvas><span class="pad-line" aria-hidden="true"></span></div>
          <div class="row"><button type="button" id="pad-undo" class="button">${e(t.undo)}</button><button type="button" id="pad-clear" class="button">${e(t.clear)}</button></div>
        </div>
        <p id="scribble-error" class="error" hidden></p>
        <button type="button" id="scribble-confirm" class="button primary">${e(t.useSignature)}</button>
      </div>

      <div id="step-code" class="step" hidden>
        <h3 id="code-title" tabindex="-1"></h3>
        <p id="code-info"></p>
        <button type="button" id="code-send" class="button">${e(t.sendCode)}</button>
        <div id="code-entry" hidden>
          <p><label for="code-input">${e(t.codeLabel)}</label><input type="text" id="code-input" inputmode="numeric" autocomplete="one-time-code" maxlength="6" aria-describedby="code-info code-error"></p>
          <p id="code-error" class="error" hidden></p>
          <button type="button" id="code-verify" class="button primary">${e(t.verify)}</button>
        </div>
      </div>

      <div id="step-external" class="step" hidden>
        <h3 id="external-title" tabindex="-1"></h3>
        <p id="external-error" class="error" hidden></p>
        <button type="button" id="external-go" class="button primary"></button>
      </div>

      <div id="step-sign" class="step" hidden>
        <h3 id="sign-title" tabindex="-1">${e(t.readyHeading)}</h3>
        <p id="ready-text">${e(t.readyText)}</p>
        <p id="sign-error" class="error" hidden></p>
        <button type="button" id="sign-button" class="button primary large" aria-describedby="ready-text sign-error">${e(t.sign)}</button>
      </div>
      <p class="muted small secure">${e(t.secureNote)}</p>
    </section>

    <section class="card reject" aria-label="${e(t.reject)}">
      <button type="button" id="reject-open" class="button link danger" aria-expanded="false" aria-controls="reject-form">${e(t.reject)}</button>
      <div id="reject-form" hidden>
        <h2 id="reject-title">${e(t.rejectHeading)}</h2>
        <p><label for="reject-reason">${e(t.rejectReasonLabel)}</label><textarea id="reject-reason" rows="3" maxlength="1000" aria-describedby="reject-error"></textarea></p>
        <p id="reject-error" class="error" hidden></p>
        <div class="row"><button type="button" id="reject-confirm" class="button danger">${e(t.rejectConfirm)}</button><button type="button" id="reject-cancel" class="button">${e(t.cancel)}</button></div>
      </div>
    </section>
  </div>
</main>
<script src="${e(root)}sign/assets/signature_pad.umd.min.js" defer></script>
<script type="module" src="${e(root)}sign/assets/sign-page.js"></script>
</body>
</html>
`;
}

/** A page with one message: unknown link (404), withdrawn or cleaned transaction (410), other refusals. */
export function renderSignErrorPage(t: SignPageTexts, heading: string, message: string, root: string, backUrl?: string): string {
  const e = escapeHtml;
  const back = backUrl === undefined ? '' : `<p><a class="button primary" href="${e(backUrl)}">${e(t.continue)}</a></p>`;
  return `${pageTop(t, heading, root)}
<main id="main" class="container" tabindex="-1"><section class="card message" aria-labelledby="message-title"><h1 id="message-title">${e(heading)}</h1><p>${e(message)}</p>${back}</section></main>
</body>
</html>
`;
}
