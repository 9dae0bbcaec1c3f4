// Behaviour that used to sit in inline on…="" attributes: the Content-Security-Policy runs only
// scripts loaded from static files. Markup opts in with data- attributes.
(function () {
  "use strict";

  // data-select-on-focus: a card swipe replaces whatever number was there before.
  document.addEventListener("focusin", function (event) {
    if (event.target.matches && event.target.matches("[data-select-on-focus]")) {
      event.target.select();
    }
  });

  document.addEventListener("submit", function (event) {
    var form = event.target;
    // data-confirm="question": ask before an action that cannot be undone.
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      return;
    }
    // data-submit-once: a second click must not send the request twice.
    if (form.hasAttribute("data-submit-once")) {
      // A disabled button is left out of what the browser sends: keep the clicked button's
      // name and value (e.g. a pick's outcome) as a hidden field first.
      var submitter = event.submitter;
      if (submitter && submitter.name) {
        var keep = document.createElement("input");
        keep.type = "hidden";
        keep.name = submitter.name;
        keep.value = submitter.value;
        form.appendChild(keep);
      }
      form.querySelectorAll("button").forEach(function (button) { button.disabled = true; });
    }
  });

  // data-percent: a progress bar's width (an inline style="width: …" would be refused). htmx
  // swaps the bar in every second, so set it on load and after each swap.
  function sizeBars(root) {
    root.querySelectorAll("[data-percent]").forEach(function (bar) {
      bar.style.width = bar.dataset.percent + "%";
    });
  }
  document.addEventListener("DOMContentLoaded", function () { sizeBars(document); });
  document.addEventListener("htmx:load", function () { sizeBars(document); });

  // data-open-now: the letter PDF the desk was waiting for has just been rendered (a polled
  // fragment swapped it in): open it, as the desk is there to print it.
  document.addEventListener("htmx:load", function (event) {
    var root = event.detail && event.detail.elt;
    if (!root || !root.querySelector) { return; }
    var link = root.matches("[data-open-now]") ? root : root.querySelector("[data-open-now]");
    if (link) { window.location.assign(link.href); }
  });
})();
