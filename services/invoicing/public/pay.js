// The hosted payment page's only script (served from 'self'; the CSP runs nothing inline).
// Counts down to expiry, checks a card before it is sent, and reloads when the invoice or its receipt changes.
(function () {
  'use strict';

  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function show(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(s / 3600);
    return (h > 0 ? h + ':' : '') + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
  }

  // Countdown from the server's own reckoning of the time left, so a wrong phone clock does not matter.
  var timer = document.querySelector('[data-remaining-ms]');
  if (timer) {
    var deadline = Date.now() + Number(timer.getAttribute('data-remaining-ms'));
    var tick = function () {
      var left = deadline - Date.now();
      timer.textContent = show(left);
      if (left <= 0) { window.location.reload(); return; }
      window.setTimeout(tick, left % 1000 || 1000);
    };
    tick();
  }

  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var d = digits.charCodeAt(digits.length - 1 - i) - 48;
      if (i % 2 === 1) { d *= 2; if (d > 9) d -= 9; }
      sum += d;
    }
    return digits.length > 0 && sum % 10 === 0;
  }

  // The server checks again; this only spares the payer a round trip.
  var form = document.querySelector('form[data-card-form]');
  if (form) {
    var number = form.elements.namedItem('number');
    var problem = form.querySelector('[data-client-problem]');
    number.addEventListener('input', function () {
      var digits = number.value.replace(/\D/g, '').slice(0, 19);
      number.value = digits.replace(/(\d{4})(?=\d)/g, '$1 ');
    });
    form.addEventListener('submit', function (e) {
      var digits = number.value.replace(/\D/g, '');
      var m = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(form.elements.namedItem('expiry').value);
      var cvc = form.elements.namedItem('cvc').value.trim();
      // The words are the page's (data-problem-*), in the payer's language.
      var said = function (what) { return form.getAttribute('data-problem-' + what); };
      var message = '';
      if (digits.length < 12 || !luhn(digits)) message = said('number');
      else if (!m || Number(m[1]) < 1 || Number(m[1]) > 12) message = said('expiry');
      else {
        var year = m[2].length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
        var now = new Date();
        if (year * 12 + Number(m[1]) - 1 < now.getUTCFullYear() * 12 + now.getUTCMonth()) message = said('expired');
        else if (!/^\d{3,4}$/.test(cvc)) message = said('cvc');
      }
      if (message) {
        e.preventDefault();
        problem.textContent = message;
        problem.hidden = false;
        return;
      }
      form.querySelector('button').disabled = true;
    });
  }

  // Paid, with the merchant's redirectUrl: go back to the shop after a moment (the link works at once).
  var back = document.querySelector('[data-return-after-ms]');
  if (back) {
    window.setTimeout(function () { window.location.assign(back.getAttribute('href')); }, Number(back.getAttribute('data-return-after-ms')));
  }

  // A payment may arrive from elsewhere (the bank app on another device), or a receipt be
  // checked: reload when either changes; sooner while a receipt is being checked.
  var body = document.body;
  var shown = body.getAttribute('data-status');
  // Pending, receipt needed (its receipt is being checked), declined (a fresh payment may open)
  // and under review (the merchant decides) can change.
  if ((shown === 'pending' || shown === 'receipt_needed' || shown === 'declined' || shown === 'review') && body.getAttribute('data-invoice')) {
    var receipt = body.getAttribute('data-receipt');
    var every = receipt === 'pending' ? 1500 : 5000;
    var poll = function () {
      fetch('/pay/' + body.getAttribute('data-invoice') + '/status', { headers: { Accept: 'application/json' } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) {
          if (s && (s.status !== shown || (s.receipt && s.receipt !== receipt))) window.location.reload();
          else window.setTimeout(poll, every);
        })
        .catch(function () { window.setTimeout(poll, 10000); });
    };
    window.setTimeout(poll, every);
  }
})();
