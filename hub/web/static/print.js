/* The printable draw's "print" button (a script file: the Content-Security-Policy forbids
   inline handlers). */
(function () {
  "use strict";
  document.querySelectorAll("[data-print]").forEach(function (button) {
    button.addEventListener("click", function () { window.print(); });
  });
})();
