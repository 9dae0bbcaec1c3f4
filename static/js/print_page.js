// The stage team's printable list: the Print button opens the browser's print dialog.
document.addEventListener("DOMContentLoaded", function () {
  var button = document.getElementById("print-page");
  if (button) button.addEventListener("click", function () { window.print(); });
});
