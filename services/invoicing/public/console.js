// The console's only script: a form marked data-api is sent to the console JSON API as JSON,
// with the session's CSRF token, and the page then goes to data-next (with {field}s of the
// answer filled in) or reloads. Errors are shown in the form's [data-error] element.
'use strict';

function formJson(form) {
  const out = {};
  for (const el of form.elements) {
    if (!el.name || el.disabled) continue;
    if (el.type === 'checkbox') {
      out[el.name] = out[el.name] || [];
      if (el.checked) out[el.name].push(el.value);
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
  if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
  const method = form.dataset.method || 'POST';
  const body = formJson(form);
  const headers = { Accept: 'application/json' };
  const csrf = document.querySelector('meta[name="csrf-token"]');
  if (csrf) headers['X-CSRF-Token'] = csrf.content;
  const hasBody = Object.keys(body).length > 0;
  if (hasBody) headers['Content-Type'] = 'application/json';
  const errorEl = form.querySelector('[data-error]');
  if (errorEl) errorEl.textContent = '';
  for (const b of form.querySelectorAll('button')) b.disabled = true;
  try {
    const res = await fetch(form.dataset.api, { method, headers, body: hasBody ? JSON.stringify(body) : undefined, credentials: 'same-origin' });
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
