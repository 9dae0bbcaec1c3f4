// The swipe field in the header of every staff page (SCREENS.md rule 1).
//
// A keyboard-wedge card reader types the magnetic stripe as keystrokes and then Enter: track 1
// "%B1000000017^KHUMALO/NALEDI^...?" holds the member's name, track 2 ";1000000017=...?" does not.
// Only the card number may leave the browser: every field marked data-swipe has its stripe
// replaced by the card number before its form is sent (the server scrubs again, in case).
//
// Focus: the header field takes the keyboard when nothing else on the page needs it (a page with
// an autofocus field or a swipe field of its own keeps it), and a swipe typed while focus sits on
// no field (the page body, a link or button just clicked) is caught, so a second swipe always lands.
(function () {
  "use strict";

  var TRACK1 = /%B(\d{4,19})\^/;
  var TRACK2 = /;(\d{4,19})[=?]/;
  var STRIPE = /%B|\^|;\d/;

  // The card number of a swipe, the text itself when it is no swipe, or null for a misread stripe.
  function scrub(text) {
    text = text.trim();
    if (!STRIPE.test(text)) { return text; }
    var match = TRACK1.exec(text) || TRACK2.exec(text);
    return match ? match[1] : null;
  }
  window.deskSwipe = { scrub: scrub };

  function headerField() { return document.getElementById("swipe"); }

  // Where a swipe goes: a page with a swipe field of its own (the activation page's card, the
  // proxy's card on a nomination form) keeps its swipes, so a form half filled in is not left.
  function swipeTarget() {
    // (A small swipe field inside a list, data-swipe-inline, is scrubbed but takes no stray swipe.)
    return document.querySelector("input[data-swipe]:not(#swipe):not([data-swipe-inline])") || headerField();
  }

  function say(form, text) {
    var note = form.querySelector("[data-swipe-note]");
    if (note) {
      note.textContent = text;
      note.hidden = !text;
    }
  }

  // Capture phase: runs before desk.js's submit-once handler disables the buttons.
  document.addEventListener("submit", function (event) {
    var form = event.target;
    var fields = form.querySelectorAll("input[data-swipe]");
    for (var i = 0; i < fields.length; i++) {
      var card = scrub(fields[i].value);
      if (card === null) {
        fields[i].value = "";
        say(form, "The card could not be read. Swipe it again, or type the card number.");
        fields[i].focus();
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
      fields[i].value = card;
      if (card === "" && fields[i].required) {  // nothing to look up: stay put, not an empty search
        fields[i].focus();
        event.preventDefault();
        event.stopImmediatePropagation();
        return;
      }
    }
    say(form, "");
  }, true);

  function editable(element) {
    if (!element || element === document.body) { return false; }
    if (element.isContentEditable) { return true; }
    var tag = element.tagName;
    if (tag === "TEXTAREA" || tag === "SELECT") { return true; }
    if (tag !== "INPUT") { return false; }
    return ["button", "submit", "reset", "checkbox", "radio", "image", "file", "hidden"].indexOf(element.type) === -1;
  }

  function pageWantsKeyboard() {
    var own = document.querySelector("[autofocus]:not(#swipe)");
    return Boolean(own) || editable(document.activeElement);
  }

  function takeFocus() {
    var field = swipeTarget();
    if (field && !pageWantsKeyboard() && !document.querySelector(".modal.show, dialog[open]")) {
      field.focus();
    }
  }

  document.addEventListener("DOMContentLoaded", takeFocus);
  // Back from the print dialog, or after htmx swapped part of the page, the next swipe must land.
  window.addEventListener("afterprint", takeFocus);
  document.addEventListener("htmx:afterSettle", function () {
    // Only when the swap took the focus away with it: a clerk tabbing through buttons keeps hers.
    if (!document.activeElement || document.activeElement === document.body) { takeFocus(); }
  });

  // A printable key pressed while no field has focus starts a swipe (or a name) in the header
  // field: focus moves there before the character is typed, so the character lands in it.
  document.addEventListener("keydown", function (event) {
    var field = swipeTarget();
    if (!field || event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) { return; }
    if (event.key.length !== 1 || event.key === " " || editable(event.target)) { return; }
    if (document.querySelector(".modal.show, dialog[open]")) { return; }
    field.value = "";
    field.focus();
  }, true);
})();
