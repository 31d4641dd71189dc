// The verification page's only script (served from 'self'; the CSP runs nothing inline).
// Waits for the check by polling the session's state, and sends the customer back to the
// merchant once it is decided.
(function () {
  'use strict';
  var body = document.body;
  var state = body.getAttribute('data-kyc-state');
  var session = body.getAttribute('data-kyc-session');

  var form = document.querySelector('form[data-kyc-form]');
  if (form) {
    form.addEventListener('submit', function () {
      // The photos take a while to upload on a phone: one press is enough.
      window.setTimeout(function () { form.querySelector('button[type=submit]').disabled = true; }, 0);
    });
  }

  if ((state === 'checking' || state === 'review') && session) {
    var poll = function () {
      fetch('/kyc/' + session + '/state', { headers: { Accept: 'application/json' } })
        .then(function (r) { return r.ok ? r.json() : null; })
        .then(function (s) {
          if (s && s.state !== state) window.location.reload();
          else window.setTimeout(poll, 2000);
        })
        .catch(function () { window.setTimeout(poll, 5000); });
    };
    window.setTimeout(poll, 1000);
  }

  // Decided: back to the merchant (callbackUrl / redirectUrl) after a moment to read the outcome.
  var back = body.getAttribute('data-return-url');
  if (back && (state === 'approved' || state === 'declined')) {
    window.setTimeout(function () { window.location.assign(back); }, 3000);
  }
})();
