// The proxy nomination form (templates/proxies/nominate.html): the proxy's card swiped into it.
//
// A keyboard-wedge reader types the stripe and then Enter. On this form that Enter must not send
// the form (half filled in, it would come back with errors): it looks the proxy up instead and
// shows who they are in place of the fields typed for a proxy without a card. A swipe that
// landed in another field of the form (the cursor was there) is moved to the lookup. Only the
// card number leaves the browser (window.deskSwipe.scrub, static/js/swipe.js); the server
// scrubs again (SwipeGuard).
(function () {
  "use strict";

  // The signing step: the form opens in a new tab (which the server notes as printed); this
  // page says so, so the clerk does not print twice.
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest("#print-form")) { return; }
    var hint = document.getElementById("not-printed");
    if (hint) { hint.textContent = "Printed: once both have signed it, tick the three boxes and register."; }
  });

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-nominee-lookup]");
    if (!form || !window.deskSwipe) { return; }
    var field = form.querySelector("input[name=lookup]");
    var box = document.getElementById("nominee-found");
    var typed = document.getElementById("nominee-typed");
    var note = form.querySelector("[data-swipe-note]");

    function say(text) {
      if (note) { note.textContent = text; note.hidden = !text; }
    }

    function showTyped(show) {
      typed.hidden = !show;
      typed.querySelectorAll("input, select").forEach(function (input) { input.disabled = !show; });
    }

    function lookUp(text) {
      var card = window.deskSwipe.scrub(text);
      if (card === null) {
        field.value = "";
        say("The card could not be read. Swipe it again, or type the card number.");
        field.focus();
        return;
      }
      say("");
      field.value = card;
      if (!card) { box.innerHTML = ""; showTyped(true); return; }
      var body = new FormData();
      body.append("csrfmiddlewaretoken", form.querySelector("[name=csrfmiddlewaretoken]").value);
      body.append("lookup", card);
      fetch(form.dataset.nomineeLookup, { method: "POST", body: body, credentials: "same-origin" })
        .then(function (response) { return response.text(); })
        .then(function (html) {
          box.innerHTML = html;  // the server's own template, escaped there
          var found = box.querySelector("[data-found='1']");
          showTyped(!found);
          if (found) { form.querySelector("button[type=submit]").focus(); }
        })
        .catch(function () { say("The proxy could not be looked up: try again."); });
    }

    // Capture: before swipe.js or the browser's own Enter handling sends the form.
    form.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.target.tagName !== "INPUT") { return; }
      var input = event.target;
      if (input === field) {
        event.preventDefault();
        lookUp(input.value);
      } else if (input.type === "text" && window.deskSwipe.scrub(input.value) !== input.value.trim()) {
        event.preventDefault();  // a stripe typed into the name or ID field: it is the proxy's card
        var raw = input.value;
        input.value = "";
        field.value = raw;
        lookUp(raw);
      }
    }, true);

    box.addEventListener("click", function (event) {
      if (!event.target.matches("[data-nominee-clear]")) { return; }
      box.innerHTML = "";
      field.value = "";
      showTyped(true);
      field.focus();
    });
  });
})();
