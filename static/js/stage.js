// The stage screen (draws/stage.html): follows the draw by itself. Every second it asks the
// server for the screen's state and redraws when it changed; after a network blip or a server
// restart it keeps trying, waiting longer each time (up to 15 s), and says so on screen. The
// countdown runs from the pick's stored time on the server's clock, not this computer's.
(function () {
  "use strict";
  var root = document.getElementById("stage");
  if (!root) return;
  var banner = document.getElementById("stage-connection");
  var url = root.dataset.stateUrl;
  var version = root.dataset.version;
  var offset = Number(root.dataset.now) - Date.now(); // the server's clock minus this one
  var EVERY = 1000;
  var LONGEST = 15000;
  var wait = EVERY;

  function words(seconds) {
    var m = Math.floor(seconds / 60);
    var s = seconds % 60;
    return m + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var now = Date.now() + offset;
    root.querySelectorAll("[data-deadline]").forEach(function (el) {
      var left = Math.max(0, Math.ceil((Number(el.dataset.deadline) - now) / 1000));
      var text = left > 0 ? words(left) : "Time";
      if (el.textContent !== text) el.textContent = text;
      el.classList.toggle("stage-countdown-over", left === 0);
      el.classList.toggle("stage-countdown-last", left > 0 && left <= 10);
    });
  }

  function again(ms) {
    window.setTimeout(poll, ms);
  }

  function poll() {
    fetch(url, { credentials: "same-origin", cache: "no-store", redirect: "follow" })
      .then(function (response) {
        if (response.redirected) {
          // Signed out (the session ended): the login page, then back here.
          window.location.reload();
          return null;
        }
        if (!response.ok) throw new Error("HTTP " + response.status);
        var serverNow = Number(response.headers.get("X-Stage-Now"));
        if (serverNow) offset = serverNow - Date.now();
        var next = response.headers.get("X-Stage-Version");
        return response.text().then(function (html) {
          if (next !== version) {
            root.innerHTML = html;
            version = next;
            root.dataset.version = next;
            tick();
          }
          return true;
        });
      })
      .then(function (ok) {
        if (ok === null) return;
        banner.hidden = true;
        wait = EVERY;
        again(wait);
      })
      .catch(function () {
        banner.hidden = false;
        wait = Math.min(wait * 2, LONGEST);
        again(wait);
      });
  }

  tick();
  window.setInterval(tick, 250);
  again(EVERY);
})();
