/**
 * The HTML of ShowUrl and of the ReceiptUrl pages (docs/design/signer-api.md#show-and-receipt-urls): the signer's
 * documents with links to open and download them (and the receipt once there is one), the SecureDownload code step when
 * a fresh code is needed first, and the "not ready" / "ended" pages of ReceiptUrl. Fully server-rendered; the small
 * show-page script only drives the code step. Dates are formatted for the page's language with Intl.
 */
import type { ShowView } from '../service/signer/show-page.js';
import { escapeHtml as e, pageTop } from './sign-page-html.js';
import type { SignPageTexts } from './sign-page-texts.js';

const fill = (text: string, values: Record<string, string | number>): string => text.replace(/\{(\w+)\}/g, (m, k: string) => String(values[k] ?? m));

function formatDate(iso: string, lang: string): string {
  return new Intl.DateTimeFormat(lang, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: 'UTC', timeZoneName: 'short' }).format(new Date(iso));
}

function closing(script: boolean, root: string): string {
  return `${script ? `<script type="module" src="${e(root)}sign/assets/show-page.js"></script>\n` : ''}</body>
</html>
`;
}

/** The SecureDownload step: ask for a code, enter it; the script reloads the page once the code is right. */
function secureSection(t: SignPageTexts, secure: NonNullable<ShowView['secureDownload']>): string {
  const to = secure.sentTo ?? '';
  const info = secure.codeSent ? fill(t.codeSent, { to }) : fill(t.codeSendTo, { to });
  return `<section id="secure" class="step" aria-labelledby="secure-title" data-type="${e(secure.type)}">
  <h2 id="secure-title">${e(t.secureHeading)}</h2>
  <p>${e(t.secureText)}</p>
  <p id="code-info" data-sent="${e(fill(t.codeSent, { to }))}">${e(info)}</p>
  <button type="button" id="code-send" class="button" data-resend="${e(t.resendCode)}">${e(secure.codeSent ? t.resendCode : t.sendCode)}</button>
  <div id="code-entry"${secure.codeSent ? '' : ' hidden'}>
    <p><label for="code-input">${e(t.codeLabel)}</label><input type="text" id="code-input" inputmode="numeric" autocomplete="one-time-code" maxlength="6" aria-describedby="code-info code-error"></p>
    <p id="code-error" class="error" hidden data-prefix="${e(t.errorPrefix)}" data-format="${e(t.codeFormat)}"></p>
    <button type="button" id="code-verify" class="button primary">${e(t.verify)}</button>
  </div>
</section>`;
}

/** ShowUrl: the signer's documents (or why they cannot be shown), with the receipt once the transaction is 30. */
export function renderShowPage(t: SignPageTexts, view: ShowView, token: string, root: string): string {
  const base = `${root}show/${encodeURIComponent(token)}`;
  const receipt = `${root}receipt/${encodeURIComponent(token)}`;
  const parts: string[] = [];
  let script = false;
  if (view.unavailable === 'not-started') {
    parts.push(`<h1 id="page-title">${e(t.notStartedHeading)}</h1><p>${e(t.notStartedText)}</p>`);
  } else if (view.unavailable === 'ended') {
    parts.push(`<h1 id="page-title">${e(t.endedHeading)}</h1><p>${e(endedText(t, view.transactionStatus))}</p>`);
  } else if (view.unavailable === 'authenticate') {
    parts.push(`<h1 id="page-title">${e(t.showTitle)}</h1><p>${e(t.showUnsigned)}</p><p><a class="button primary" href="${e(root)}sign/${e(encodeURIComponent(token))}">${e(t.toSteps)}</a></p>`);
  } else {
    parts.push(`<h1 id="page-title">${e(t.showTitle)}</h1>`);
    parts.push(`<p>${e(view.signedAt !== undefined ? fill(t.showSigned, { date: formatDate(view.signedAt, t.lang) }) : t.showUnsigned)}</p>`);
    if (view.secureDownload?.required === true) {
      parts.push(secureSection(t, view.secureDownload));
      script = true;
    } else {
      if (view.secureDownload?.openUntil !== undefined) parts.push(`<p class="muted">${e(fill(t.secureOpen, { time: formatDate(view.secureDownload.openUntil, t.lang) }))}</p>`);
      parts.push(`<h2>${e(t.documents)}</h2><ul class="doc-list">`);
      const count = new Intl.NumberFormat(t.lang);
      for (const doc of view.documents) {
        const href = `${base}/file/${encodeURIComponent(doc.fileId)}`;
        parts.push(`<li><h3>${e(doc.displayName)}</h3><p class="muted small">${e(fill(t.pageCount, { count: count.format(doc.pages) }))}</p><div class="row"><a class="button" href="${e(href)}">${e(fill(t.openDocument, { name: doc.displayName }))}</a><a class="button" href="${e(href)}?download=1" download>${e(fill(t.downloadDocument, { name: doc.displayName }))}</a></div></li>`);
      }
      parts.push('</ul>');
      if (view.receiptReady) {
        parts.push(`<h2>${e(t.receiptTitle)}</h2><div class="row"><a class="button" href="${e(receipt)}">${e(t.openReceipt)}</a><a class="button" href="${e(receipt)}?download=1" download>${e(t.downloadReceipt)}</a></div>`);
      }
    }
  }
  const reference = view.reference !== undefined ? `<p class="muted">${e(t.reference)}: ${e(view.reference)}</p>` : '';
  return `${pageTop(t, t.showTitle, root, ` data-token="${e(token)}"`)}
<main id="main" class="container" tabindex="-1">
<section class="card" aria-labelledby="page-title">
${parts.join('\n')}
${reference}
</section>
<div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
</main>
${closing(script, root)}`;
}

/** ReceiptUrl before the receipt exists: not ready yet (the transaction is still running) or never (it ended otherwise). */
export function renderReceiptStatePage(t: SignPageTexts, state: 'not-ready' | 'ended', token: string, root: string): string {
  const heading = state === 'not-ready' ? t.receiptNotReadyHeading : t.endedHeading;
  const text = state === 'not-ready' ? t.receiptNotReadyText : t.receiptEndedText;
  return `${pageTop(t, heading, root)}
<main id="main" class="container" tabindex="-1">
<section class="card message" aria-labelledby="page-title"><h1 id="page-title">${e(heading)}</h1><p>${e(text)}</p>
<p><a class="button" href="${e(root)}show/${e(encodeURIComponent(token))}">${e(t.viewDocuments)}</a></p></section>
</main>
${closing(false, root)}`;
}

/** ReceiptUrl when SecureDownload asks for a fresh code first. */
export function renderReceiptSecurePage(t: SignPageTexts, view: ShowView, token: string, root: string): string {
  const secure = view.secureDownload ?? { type: 'PhoneNumber', codeSent: false, required: true };
  return `${pageTop(t, t.receiptTitle, root, ` data-token="${e(token)}"`)}
<main id="main" class="container" tabindex="-1">
<section class="card" aria-labelledby="page-title"><h1 id="page-title">${e(t.receiptTitle)}</h1>
${secureSection(t, secure)}
</section>
<div id="announcer" class="visually-hidden" role="status" aria-live="polite" aria-atomic="true"></div>
</main>
${closing(true, root)}`;
}

/** The text of an ended transaction's status, in the signer's words. */
function endedText(t: SignPageTexts, status: number): string {
  switch (status) {
    case 30:
      return t.completedText;
    case 40:
      return t.rejectedByOtherText;
    case 50:
      return t.expiredText;
    case 60:
      return t.cancelledText;
    default:
      return t.failedText;
  }
}
