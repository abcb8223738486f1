// The SecureDownload step of the ShowUrl and ReceiptUrl pages (docs/design/signer-api.md#authentications): ask for a
// fresh code
// (POST /api/signer/<token>/verification {Type}), enter it ({Type, Code}); once it is right the page reloads and
// offers the downloads, open for 10 minutes. Results and errors are announced; errors are tied to the code field.
const $ = (id) => document.getElementById(id);
const token = document.body.dataset.token || '';
const section = $('secure');
const type = section?.dataset.type;

function announce(text) {
  const el = $('announcer');
  el.textContent = '';
  setTimeout(() => (el.textContent = text), 50);
}

const API_ERRORS = JSON.parse(document.body.dataset.apiErrors || '{}');

// A refusal in the page's language by its stable code, else its status; never the API's English Message.
function apiError(code, status) {
  const key = (code && API_ERRORS.keys[code]) || API_ERRORS.status[status >= 500 ? 500 : status] || 'notAccepted';
  return new Error(API_ERRORS.texts[key]);
}

async function verification(body) {
  let response;
  try {
    response = await fetch(new URL(`api/signer/${encodeURIComponent(token)}/verification`, new URL(document.body.dataset.root || '/', location.href)), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      credentials: 'omit',
    });
  } catch {
    throw apiError(undefined, 0);
  }
  const json = await response.json().catch(() => ({}));
  if (!response.ok) throw apiError(response.headers.get('paraph-error-code') || undefined, response.status);
  return json;
}

function showError(text) {
  const error = $('code-error');
  error.hidden = false;
  error.textContent = `${error.dataset.prefix} ${text}`;
  $('code-input').setAttribute('aria-invalid', 'true');
  $('code-input').focus();
}

if (section) {
  $('code-send').addEventListener('click', async () => {
    try {
      await verification({ Type: type });
      $('code-info').textContent = $('code-info').dataset.sent;
      $('code-send').textContent = $('code-send').dataset.resend;
      $('code-entry').hidden = false;
      announce($('code-info').textContent);
      $('code-input').focus();
    } catch (error) {
      $('code-entry').hidden = false;
      showError(error.message);
    }
  });
  const submit = async () => {
    const code = $('code-input').value.trim();
    if (!/^[0-9]{6}$/.test(code)) return showError($('code-error').dataset.format);
    try {
      await verification({ Type: type, Code: code });
      location.reload();
    } catch (error) {
      showError(error.message);
    }
  };
  $('code-verify').addEventListener('click', submit);
  $('code-input').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') submit();
  });
}
