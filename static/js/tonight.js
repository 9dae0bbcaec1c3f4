// Tonight's draws (draws/tonight.html): the next draw's countdown, on the server's clock.
(function () {
  "use strict";
  var el = document.getElementById("tonight-countdown");
  if (!el) return;
  var at = Number(el.dataset.at) * 1000;
  var offset = Number(el.dataset.now) * 1000 - Date.now();

  function tick() {
    var left = Math.max(0, Math.floor((at - (Date.now() + offset)) / 1000));
    var h = Math.floor(left / 3600);
    var m = Math.floor((left % 3600) / 60);
    var s = left % 60;
    var text = left === 0 ? "Due now" : (h ? h + " h " : "") + (m < 10 && h ? "0" : "") + m + " min " + (s < 10 ? "0" : "") + s + " s";
    if (el.textContent !== text) el.textContent = text;
  }

  tick();
  window.setInterval(tick, 1000);
})();
