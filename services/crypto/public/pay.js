// The crypto payment page's only script (served from 'self'; the CSP runs nothing inline).
// Counts down to expiry from the server's reckoning of the time left, so a wrong phone clock
// does not matter, and reloads the page at expiry and every 10 s while it waits for a transfer.
(function () {
  'use strict';
  function pad(n) { return (n < 10 ? '0' : '') + n; }
  function show(ms) {
    var s = Math.max(0, Math.ceil(ms / 1000));
    var h = Math.floor(s / 3600);
    return (h > 0 ? h + ':' : '') + pad(Math.floor((s % 3600) / 60)) + ':' + pad(s % 60);
  }
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
  if (document.body.getAttribute('data-open') === 'true') window.setTimeout(function () { window.location.reload(); }, 10000);
})();
