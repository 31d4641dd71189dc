// The crypto payment page's only script (served from 'self'; the CSP runs nothing inline).
// Copy buttons, the countdown, times in the payer's own time zone, and the live status: it
// polls /pay/{id}/status and, when the invoice changed, fetches the page's new markup and swaps
// its live section in place (no reload). Everything it shows is rendered
// by the server in the payer's language; without JavaScript the page still reads correctly
// (times in UTC, values to copy by hand).
(function () {
  'use strict';

  var body = document.body;
  var announcer = document.querySelector('[data-announce]');
  var POLL_MS = 5000;
  var RETRY_MS = 15000;

  function announce(text) {
    if (!announcer) return;
    // Cleared first, so the same words said twice are announced twice.
    announcer.textContent = '';
    window.setTimeout(function () { announcer.textContent = text; }, 50);
  }

  // ---- Times: in the payer's time zone, with its offset (the server wrote UTC) ----
  function localTimes(root) {
    var locale = body.getAttribute('data-locale') || undefined;
    var format;
    try {
      format = new Intl.DateTimeFormat(locale, { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZoneName: 'shortOffset' });
    } catch (e) {
      return; // an old browser: the UTC text stays, and says it is UTC
    }
    var times = root.querySelectorAll('time[data-local-time]');
    for (var i = 0; i < times.length; i++) {
      var at = new Date(times[i].getAttribute('datetime'));
      if (!isNaN(at.getTime())) times[i].textContent = format.format(at);
    }
  }

  // ---- Countdown, from the server's own reckoning of the time left (a wrong phone clock does not matter) ----
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function show(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(s / 3600);
    return (h > 0 ? h + ':' : '') + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
  }
  var countdownTimer = null;
  function countdown(root) {
    if (countdownTimer) window.clearTimeout(countdownTimer);
    countdownTimer = null;
    var timer = root.querySelector('[data-remaining-ms]');
    if (!timer) return;
    var deadline = Date.now() + Number(timer.getAttribute('data-remaining-ms'));
    var tick = function () {
      var left = deadline - Date.now();
      timer.textContent = show(left);
      // At expiry the server hides the address: ask it now rather than at the next poll.
      if (left <= 0) { pollNow(); return; }
      countdownTimer = window.setTimeout(tick, left % 1000 || 1000);
    };
    tick();
  }

  // ---- Copy buttons (the Clipboard API; when refused, the value is selected to copy by hand) ----
  function revealCopyButtons(root) {
    if (!navigator.clipboard && !document.queryCommandSupported) return;
    var buttons = root.querySelectorAll('button[data-copy]');
    for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false;
  }
  function noteOf(button) {
    var row = button.closest('.copy-row');
    var note = row && row.nextElementSibling;
    return note && note.hasAttribute('data-copy-note') ? note : null;
  }
  function selectValue(button) {
    var value = button.closest('.copy-row').querySelector('.copy-value');
    var range = document.createRange();
    range.selectNodeContents(value);
    var selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }
  var noteTimers = new WeakMap();
  function copied(button, ok) {
    var note = noteOf(button);
    if (!note) return;
    note.textContent = button.getAttribute(ok ? 'data-copied' : 'data-copy-failed');
    note.className = 'copy-note ' + (ok ? 'ok' : 'failed');
    if (noteTimers.has(note)) window.clearTimeout(noteTimers.get(note));
    // "Copied" fades after a while; the refusal stays, since it asks the payer to act.
    if (ok) noteTimers.set(note, window.setTimeout(function () { note.textContent = ''; note.className = 'copy-note'; }, 4000));
  }
  document.addEventListener('click', function (e) {
    var button = e.target instanceof Element ? e.target.closest('button[data-copy]') : null;
    if (!button) return;
    var value = button.getAttribute('data-copy');
    var fallback = function () {
      selectValue(button);
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (err) { ok = false; }
      copied(button, ok);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(value).then(function () { copied(button, true); }, function () {
        // Refused (permissions, an insecure context): select it, so a long press copies it.
        selectValue(button);
        copied(button, false);
      });
    } else fallback();
  });

  // ---- Live status ----
  var live = document.querySelector('[data-live]');
  var statusUrl = body.getAttribute('data-status-url');
  var version = body.getAttribute('data-version');
  var pollTimer = null;
  var busy = false;

  function schedule(ms) {
    if (pollTimer) window.clearTimeout(pollTimer);
    pollTimer = body.getAttribute('data-final') === 'true' ? null : window.setTimeout(poll, ms);
  }
  function pollNow() { schedule(0); }

  /** Fetches the page again and puts its live section in place of ours, keeping the focus on the same control. */
  function refresh(label) {
    return fetch(window.location.href, { headers: { Accept: 'text/html' }, credentials: 'same-origin' })
      .then(function (r) { if (!r.ok) throw new Error('page ' + r.status); return r.text(); })
      .then(function (text) {
        var next = new DOMParser().parseFromString(text, 'text/html');
        var section = next.querySelector('[data-live]');
        if (!section) throw new Error('no live section');
        var focused = document.activeElement && live.contains(document.activeElement) ? document.activeElement.getAttribute('data-testid') : null;
        live.innerHTML = section.innerHTML;
        document.title = next.title;
        ['data-version', 'data-final'].forEach(function (a) { body.setAttribute(a, next.body.getAttribute(a)); });
        version = body.getAttribute('data-version');
        prepare(live);
        if (focused) {
          var again = live.querySelector('[data-testid="' + focused + '"]');
          if (again) again.focus();
        }
        if (label) announce(label);
      });
  }

  function poll() {
    pollTimer = null;
    if (busy || !statusUrl) return;
    // A hidden tab does not poll; it asks once it is shown again.
    if (document.hidden) return;
    busy = true;
    fetch(statusUrl, { headers: { Accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (r) {
        if (r.status === 429) {
          var wait = Number(r.headers.get('Retry-After'));
          return { retryMs: (wait > 0 ? wait : 60) * 1000 };
        }
        if (!r.ok) return { retryMs: RETRY_MS };
        return r.json().then(function (s) {
          if (s.version === version) return { retryMs: POLL_MS };
          return refresh(s.status).then(function () { return { retryMs: POLL_MS }; });
        });
      })
      .catch(function () { return { retryMs: RETRY_MS }; })
      .then(function (next) {
        busy = false;
        schedule(next.retryMs);
      });
  }

  document.addEventListener('visibilitychange', function () {
    if (!document.hidden && statusUrl && body.getAttribute('data-final') !== 'true' && !busy) pollNow();
  });

  function prepare(root) {
    localTimes(root);
    countdown(root);
    revealCopyButtons(root);
  }

  prepare(document);
  if (live && statusUrl) schedule(POLL_MS);
})();
