// The prize letter's issue form (templates/prizes/letter_issue.html): the winner's card swiped,
// then the ID typed from the document.
//
// A keyboard-wedge reader types the stripe and then Enter. Here that Enter must not send the
// form (the ID is not typed yet): the stripe becomes its card number (window.deskSwipe.scrub,
// static/js/swipe.js) and the cursor moves on to the ID number. A swipe that landed in the ID
// field (the cursor was there) is moved to the card field. The server scrubs again (SwipeGuard).
(function () {
  "use strict";

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form[data-letter-issue]");
    if (!form || !window.deskSwipe) { return; }
    var card = form.querySelector("input[name=card]");
    var idNumber = form.querySelector("input[name=id_number]");
    var note = form.querySelector("[data-swipe-note]");

    function take(raw) {
      var number = window.deskSwipe.scrub(raw);
      if (note) {
        note.textContent = number === null ? "The card could not be read. Swipe it again, or type the card number." : "";
        note.hidden = number !== null;
      }
      card.value = number || "";
      (number ? idNumber : card).focus();
    }

    // Capture: before swipe.js or the browser's own Enter handling sends the form.
    form.addEventListener("keydown", function (event) {
      if (event.key !== "Enter" || event.target.tagName !== "INPUT") { return; }
      var input = event.target;
      if (input === card) {
        event.preventDefault();
        take(input.value);
      } else if (input === idNumber && window.deskSwipe.scrub(input.value) !== input.value.trim()) {
        event.preventDefault();  // a stripe typed into the ID field: it is the winner's card
        var raw = input.value;
        input.value = "";
        take(raw);
      }
    }, true);
  });
})();
