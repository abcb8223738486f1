/**
 * The HTML of the signing page (issue 6): one server-rendered document whose sections the page script shows one at
 * a time — loading, status messages (waiting, ended, …), the documents, the verification steps (consent, signature
 * pad with a typed-name alternative, phone/e-mail code), sign and reject, and the final screen. Every control has a
 * label; texts come from sign-page-texts.ts and are HTML-escaped; no inline script or style (the CSP forbids them).
 */
import type { SignPageTexts } from './sign-page-texts.js';

/** Escapes text for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

function head(t: SignPageTexts, title: string): string {
  return `<!doctype html>
<html lang="${escapeHtml(t.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/sign/assets/sign-page.css">
</head>`;
}

function banner(t: SignPageTexts): string {
  return `<header class="topbar"><div class="topbar-inner"><span class="logo" aria-hidden="true">✎</span><span class="brand">${escapeHtml(t.brand)}</span><span class="lock" id="ref"></span></div></header>`;
}

/** The signing page. */
export function renderSignPage(t: SignPageTexts): string {
  const e = escapeHtml;
  return `${head(t, t.title)}
<body data-texts="${e(JSON.stringify(t))}">
${banner(t)}
<main id="main" class="container" tabindex="-1">
  <p id="loading" class="card muted" role="status">${e(t.loading)}</p>
  <section id="message" class="card message" hidden aria-live="polite"><h1 id="message-title"></h1><p id="message-text"></p><p><a id="message-link" class="button primary" hidden></a></p></section>

  <section id="journey" hidden>
    <div class="card intro">
      <h1 id="greeting"></h1>
      <p id="intro-text">${e(t.intro)}</p>
      <p id="reference" class="muted" hidden></p>
      <p><a href="#steps-title" class="button">${e(t.toSteps)}</a></p>
    </div>

    <h2 class="section-title" id="documents-title">${e(t.documents)}</h2>
    <div id="documents"></div>

    <section class="card steps" aria-labelledby="steps-title">
      <h2 id="steps-title">${e(t.stepsHeading)}</h2>
      <ol id="step-list" class="step-list"></ol>

      <div id="step-consent" class="step" hidden>
        <h3>${e(t.consentHeading)}</h3>
        <p class="check-row"><input type="checkbox" id="consent-box"><label for="consent-box">${e(t.consentLabel)}</label></p>
        <button type="button" id="consent-confirm" class="button primary" disabled>${e(t.confirm)}</button>
      </div>

      <div id="step-scribble" class="step" hidden>
        <h3>${e(t.scribbleHeading)}</h3>
        <div class="tabs" role="tablist">
          <button type="button" role="tab" id="tab-draw" aria-selected="true" aria-controls="panel-draw">${e(t.drawTab)}</button>
          <button type="button" role="tab" id="tab-type" aria-selected="false" aria-controls="panel-type">${e(t.typeTab)}</button>
        </div>
        <div id="panel-draw" role="tabpanel" aria-labelledby="tab-draw">
          <p class="muted" id="pad-help">${e(t.scribbleHelp)}</p>
          <div class="pad-wrap"><canvas id="pad" aria-label="${e(t.padLabel)}" aria-describedby="pad-help" role="img"></canvas><span class="pad-line" aria-hidden="true"></span></div>
          <div class="row"><button type="button" id="pad-undo" class="button">${e(t.undo)}</button><button type="button" id="pad-clear" class="button">${e(t.clear)}</button></div>
        </div>
        <div id="panel-type" role="tabpanel" aria-labelledby="tab-type" hidden>
          <p class="muted">${e(t.typedHelp)}</p>
          <p id="typed-preview" class="typed-preview" aria-hidden="true"></p>
        </div>
        <p><label for="scribble-name">${e(t.nameLabel)}</label><input type="text" id="scribble-name" autocomplete="name" maxlength="255"></p>
        <p id="scribble-error" class="error" role="alert" hidden></p>
        <button type="button" id="scribble-confirm" class="button primary">${e(t.useSignature)}</button>
      </div>

      <div id="step-code" class="step" hidden>
        <h3 id="code-title"></h3>
        <p id="code-info"></p>
        <button type="button" id="code-send" class="button">${e(t.sendCode)}</button>
        <div id="code-entry" hidden>
          <p><label for="code-input">${e(t.codeLabel)}</label><input type="text" id="code-input" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6"></p>
          <p id="code-error" class="error" role="alert" hidden></p>
          <button type="button" id="code-verify" class="button primary">${e(t.verify)}</button>
        </div>
      </div>

      <div id="step-external" class="step" hidden>
        <h3 id="external-title"></h3>
        <p id="external-error" class="error" role="alert" hidden></p>
        <button type="button" id="external-go" class="button primary"></button>
      </div>

      <div id="step-sign" class="step" hidden>
        <h3>${e(t.readyHeading)}</h3>
        <p>${e(t.readyText)}</p>
        <p id="sign-error" class="error" role="alert" hidden></p>
        <p id="sign-busy" class="muted" role="status" hidden>${e(t.signing)}</p>
        <button type="button" id="sign-button" class="button primary large">${e(t.sign)}</button>
      </div>
      <p class="muted small secure">${e(t.secureNote)}</p>
    </section>

    <section class="card reject" aria-labelledby="reject-title">
      <button type="button" id="reject-open" class="button link danger" aria-expanded="false" aria-controls="reject-form">${e(t.reject)}</button>
      <div id="reject-form" hidden>
        <h2 id="reject-title">${e(t.rejectHeading)}</h2>
        <p><label for="reject-reason">${e(t.rejectReasonLabel)}</label><textarea id="reject-reason" rows="3" maxlength="1000"></textarea></p>
        <p id="reject-error" class="error" role="alert" hidden></p>
        <div class="row"><button type="button" id="reject-confirm" class="button danger">${e(t.rejectConfirm)}</button><button type="button" id="reject-cancel" class="button">${e(t.cancel)}</button></div>
      </div>
    </section>
  </section>
</main>
<script src="/sign/assets/signature_pad.umd.min.js" defer></script>
<script type="module" src="/sign/assets/sign-page.js"></script>
</body>
</html>
`;
}

/** The page for an unknown token (404) or a withdrawn transaction (410). */
export function renderSignErrorPage(t: SignPageTexts, message: string, backUrl?: string): string {
  const back = backUrl === undefined ? '' : `<p><a class="button primary" href="${escapeHtml(backUrl)}">${escapeHtml(t.continue)}</a></p>`;
  return `${head(t, t.errorHeading)}
<body>
${banner(t)}
<main class="container"><section class="card message"><h1>${escapeHtml(t.errorHeading)}</h1><p>${escapeHtml(message)}</p>${back}</section></main>
</body>
</html>
`;
}
