/* The domino director's page: registering several pairs in one form.

   The players ticked in the registry's list pair up in the order they are ticked (the 1st with
   the 2nd, the 3rd with the 4th…): the order is kept in the form's hidden "order" field (so a
   refreshed page starts again from what the form holds), each ticked name shows its pair's
   number and the pairs being formed are listed under the list. Without this script the form
   still works: the players pair up in the list's order.

   No confirmation here: the dashboard's own script asks once for every form that says
   data-confirm ("TIEMPO", closing); a second question here made "TIEMPO" ask twice. */
(function () {
  "use strict";

  function redraw(form) {
    const field = form.querySelector("input[data-pick-order]");
    const list = form.querySelector("#domino-forming");
    if (!field) return;
    const order = field.value ? field.value.split(",") : [];
    const boxes = {};
    form.querySelectorAll("input[type=checkbox][name=players]").forEach(function (box) {
      boxes[box.value] = box;
      const n = box.parentElement.querySelector(".pick-n");
      const i = order.indexOf(box.value);
      if (n) n.textContent = i < 0 ? "" : "(" + (Math.floor(i / 2) + 1) + ")";
    });
    if (!list) return;
    list.replaceChildren();
    for (let i = 0; i < order.length; i += 2) {
      const li = document.createElement("li");
      const a = boxes[order[i]], b = boxes[order[i + 1]];
      li.textContent = (a ? a.dataset.label : order[i]) + " / " + (b ? b.dataset.label : "…");
      list.appendChild(li);
    }
  }

  document.addEventListener("change", function (evt) {
    const box = evt.target;
    if (!box.matches || !box.matches("#domino-pick[data-pairs] input[type=checkbox]")) return;
    const form = box.form;
    const field = form && form.querySelector("input[data-pick-order]");
    if (!field) return;
    const order = (field.value ? field.value.split(",") : []).filter(function (id) {
      return id !== box.value;
    });
    if (box.checked) order.push(box.value);
    field.value = order.join(",");
    redraw(form);
  });
})();
