// The draw page on draw night (issue 13): the run follows the draw by itself, the presentation
// window counts down from the server's remaining seconds, and the stage's keys press the buttons.
(function () {
  "use strict";

  var POLL_MS = 1500;
  var ticking = null;

  // The pick waiting comes first ([autofocus]), then the game's turn (data-focus-turn: its first
  // control), then what follows every turn (data-focus-after: the game's Finish).
  var CONTROL = "input:not([type=hidden]):not([disabled]), select:not([disabled]), " +
    "textarea:not([disabled]), button:not([disabled])";

  function focusNext(run) {
    if (run.contains(document.activeElement)) { return; }
    var turn = run.querySelector("[data-focus-turn]");
    var target = run.querySelector("[autofocus]:not([disabled])") ||
      (turn && turn.querySelector(CONTROL)) ||
      run.querySelector("[data-focus-after]:not([disabled])");
    if (target) { target.focus(); }
  }

  // data-countdown: the seconds the server says are left; counted down here, never trusted.
  function startCountdown(run) {
    if (ticking) { clearInterval(ticking); ticking = null; }
    var box = run.querySelector("[data-countdown]");
    if (!box) { return; }
    var left = parseInt(box.dataset.countdown, 10) || 0;
    var shown = box.querySelector("[data-countdown-left]");
    var started = Date.now();
    ticking = setInterval(function () {
      var now = Math.max(0, left - Math.floor((Date.now() - started) / 1000));
      if (shown) { shown.textContent = String(now); }
      if (now === 0) {
        clearInterval(ticking);
        ticking = null;
        box.textContent = "The time to come forward has passed (" + box.dataset.countdownUntil + ").";
        poll(true);  // the server now offers No-show
      }
    }, 250);
  }

  // What the conductor has set for the winner still awaited (the ID seen, Receipt seen, a reason
  // being typed) stays when the run is swapped in again for that same pick, as it is when the
  // window ends; a new pick gets a clean form. Returns the field to focus again: the twin of the
  // one the conductor was in (null: none).
  function carryOver(run, fresh) {
    var before = run.querySelector("#outcome-form");
    var after = fresh.querySelector("#outcome-form");
    if (!before || !after) { return null; }
    var pick = function (form) { var field = form.querySelector("input[name=pick]"); return field && field.value; };
    if (!pick(before) || pick(before) !== pick(after)) { return null; }
    var focused = document.activeElement;
    var refocus = null;
    before.querySelectorAll("select[id], textarea[id], input[id]:not([type=hidden])").forEach(function (field) {
      var twin = after.querySelector("#" + CSS.escape(field.id));
      if (!twin || twin.tagName !== field.tagName || twin.type !== field.type) { return; }
      if (field.type === "checkbox" || field.type === "radio") {
        twin.checked = field.checked;
      } else if (field.tagName !== "SELECT" || twin.querySelector('option[value="' + CSS.escape(field.value) + '"]')) {
        twin.value = field.value;
      }
      if (field === focused) { refocus = twin; }
    });
    return refocus;
  }

  function swapIn(html) {
    var run = document.getElementById("run");
    var holder = document.createElement("div");
    holder.innerHTML = html.trim();
    var fresh = holder.querySelector("#run");
    if (!run || !fresh) { return; }
    var refocus = carryOver(run, fresh);
    run.replaceWith(fresh);
    if (refocus) { refocus.focus(); }
    startCountdown(fresh);
    focusNext(fresh);
  }

  function poll(force) {
    var run = document.getElementById("run");
    if (!run || !run.dataset.runPoll) { return; }
    fetch(run.dataset.runPoll, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var match = /data-run-version="([^"]*)"/.exec(html);
        var current = document.getElementById("run");
        if (!current) { return; }
        if (force || (match && match[1] !== current.dataset.runVersion)) {
          // Never throw away what a conductor is typing (a reason, a serial being scanned).
          var typing = current.contains(document.activeElement) &&
            document.activeElement.matches("input[type=text], input:not([type]), textarea") &&
            document.activeElement.value !== "";
          if (!typing || force) { swapIn(html); }
        }
      })
      .catch(function () { /* a network blip: the next poll tries again */ });
  }

  // P, X, D, N, Q (the pick) and the game's keys (the vault's W, K) press the stage button
  // showing that key (not while typing in a field).
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.altKey || event.metaKey || event.key.length !== 1) { return; }
    var target = event.target;
    if (target && target.matches && target.matches("input, textarea, select")) { return; }
    var button = document.querySelector(
      'form[data-stage-keys] button[data-key="' + CSS.escape(event.key.toUpperCase()) + '"]:not([disabled])');
    if (button) {
      event.preventDefault();
      button.form.requestSubmit(button);
    }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var run = document.getElementById("run");
    if (!run || !run.dataset.runPoll) { return; }
    startCountdown(run);
    focusNext(run);
    setInterval(function () { poll(false); }, POLL_MS);
  });
})();
