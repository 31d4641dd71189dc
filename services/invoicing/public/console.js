// The console's only script: a form marked data-api is sent to the console JSON API as JSON,
// with the session's CSRF token, and the page then goes to data-next (with {field}s of the
// answer filled in) or reloads. Errors are shown in the form's [data-error] element.
// A number input is sent as a JSON number; data-confirm may name fields ({amount}) to show
// what is about to be sent; a form marked data-idempotent sends an Idempotency-Key, the same
// for the same body (a double click or a retry after a lost answer does it once), a new one
// when the body changes (a corrected amount after a refusal is a new request).
'use strict';

function newKey() {
  const bytes = new Uint8Array(16);
  window.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

function formJson(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled) continue;
    if (el.type === 'checkbox') {
      out[el.name] = out[el.name] || [];
      if (el.checked) out[el.name].push(el.value);
    } else if (el.type === 'number') {
      if (el.value !== '') out[el.name] = Number(el.value);
    } else if (el.value !== '' || form.dataset.method === 'PATCH') {
      out[el.name] = el.value;
    }
  }
  return out;
}

function errorText(json, status) {
  const e = json && json.error;
  if (!e) return 'Request failed (HTTP ' + status + ')';
  const details = (e.details || []).map((d) => d.field + ' ' + d.message).join('; ');
  return details && !e.message.includes(details) ? e.message + ' (' + details + ')' : e.message;
}

document.addEventListener('submit', async (event) => {
  const form = event.target;
  if (!form.dataset || !form.dataset.api) return;
  event.preventDefault();
  const method = form.dataset.method || 'POST';
  // A form with a file goes as multipart (the browser sets its Content-Type and boundary).
  const upload = form.enctype === 'multipart/form-data';
  const body = upload ? new FormData(form) : formJson(form);
  // The confirmation names what was typed, as typed (250.50, not the number 250.5).
  const typed = (k) => (form.elements[k] && form.elements[k].value) || '';
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm.replace(/\{(\w+)\}/g, (_, k) => typed(k)))) return;
  const headers = { Accept: 'application/json' };
  if ('idempotent' in form.dataset) {
    const text = JSON.stringify(body);
    if (form.idempotency === undefined || form.idempotency.text !== text) form.idempotency = { text, key: newKey() };
    headers['Idempotency-Key'] = form.idempotency.key;
  }
  const csrf = document.querySelector('meta[name="csrf-token"]');
  if (csrf) headers['X-CSRF-Token'] = csrf.content;
  const hasBody = upload || Object.keys(body).length > 0;
  if (hasBody && !upload) headers['Content-Type'] = 'application/json';
  const errorEl = form.querySelector('[data-error]');
  if (errorEl) errorEl.textContent = '';
  for (const b of form.querySelectorAll('button')) b.disabled = true;
  try {
    const res = await fetch(form.dataset.api, { method, headers, body: upload ? body : hasBody ? JSON.stringify(body) : undefined, credentials: 'same-origin' });
    const json = await res.json().catch(() => null);
    if (!res.ok) {
      if (errorEl) errorEl.textContent = errorText(json, res.status);
      return;
    }
    const next = form.dataset.next;
    if (next) window.location.assign(next.replace(/\{(\w+)\}/g, (_, k) => encodeURIComponent(json[k])));
    else window.location.reload();
  } catch (err) {
    if (errorEl) errorEl.textContent = 'Network error: ' + err.message;
  } finally {
    for (const b of form.querySelectorAll('button')) b.disabled = false;
  }
});
