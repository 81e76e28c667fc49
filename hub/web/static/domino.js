/* The domino director's page: a confirmation before the forms that say so ("TIEMPO"). */
(function () {
  "use strict";
  document.addEventListener("submit", function (ev) {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.dataset.confirm) return;
    if (!window.confirm(form.dataset.confirm)) ev.preventDefault();
  }, true);
})();
