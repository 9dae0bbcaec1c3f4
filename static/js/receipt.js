// CSS has no "auto" page length: make the printed page as long as the slip (its on-screen 3 mm
// padding stands for the printed 3 mm margins, plus 2 mm to spare), so the roll is cut just
// below it rather than after an A4 length of paper. The rule goes in through the CSSOM, which
// the Content-Security-Policy allows (an inline <style> it would refuse).
(function () {
  "use strict";
  var sheet = null;
  var ruleIndex = null;

  function sizeReceiptPage() {
    var slip = document.getElementById("receipt");
    if (!slip) return;
    var mm = Math.ceil(slip.getBoundingClientRect().height * 25.4 / 96) + 2;
    if (sheet === null) {
      var link = document.getElementById("receipt-css");
      sheet = link && link.sheet;
      if (!sheet) return;
    }
    if (ruleIndex !== null) sheet.deleteRule(ruleIndex);
    ruleIndex = sheet.insertRule("@page { size: 80mm " + mm + "mm; margin: 3mm }", sheet.cssRules.length);
  }

  document.addEventListener("DOMContentLoaded", function () {
    var button = document.getElementById("print-receipt");
    if (button) button.addEventListener("click", function () { window.print(); });
  });
  window.addEventListener("load", sizeReceiptPage);
  window.addEventListener("beforeprint", sizeReceiptPage);
})();
