/* "Mesa nueva" on the director's home: the list of Pis waiting to be adopted follows the live
   feed (live.js passes each message on as a "mesa:feed" event), and the adopt forms are posted
   by script so that a refusal asking for confirmation ("reemplazar el Pi de la mesa 7") offers
   a button that posts again with replace=1. Without this script the forms post as usual. */
(function () {
  "use strict";

  const body = document.body;
  let shown = null; // the feed's enrolment version the section shows
  let waiting = false; // a refetch held back while the director types a table number

  function section() { return document.getElementById("enrolment"); }

  function typingIn(el) {
    const f = document.activeElement;
    return !!(el && f && el.contains(f) && f.matches("input:not([type=hidden]):not([type=checkbox])"));
  }

  function refetch() {
    const old = section();
    if (!old || !old.dataset.url) return;
    if (typingIn(old)) { waiting = true; return; }
    waiting = false;
    fetch(old.dataset.url, { headers: { "X-Mesa-Fragment": "main" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        const tpl = document.createElement("template");
        tpl.innerHTML = html.trim();
        const fresh = tpl.content.querySelector("#enrolment");
        const now = section();
        if (!fresh || !now) return;
        if (typingIn(now)) { waiting = true; return; }
        now.replaceWith(fresh);
      })
      .catch(function () { /* keep what is shown; the next change retries */ });
  }

  document.addEventListener("mesa:feed", function (evt) {
    const msg = evt.detail || {};
    if (msg.kind !== "enrolment" || !msg.data) return;
    if (msg.data.version === shown) return;
    shown = msg.data.version;
    refetch();
  });

  document.addEventListener("focusout", function (evt) {
    if (waiting && evt.target.closest && evt.target.closest("#enrolment")) setTimeout(refetch, 0);
  });

  function post(form, extra) {
    const data = new URLSearchParams(new FormData(form));
    if (extra) Object.keys(extra).forEach(function (k) { data.set(k, extra[k]); });
    const out = form.querySelector(".result");
    return fetch(form.action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRF-Token": body.dataset.csrf || "" },
    }).then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (res) {
        const ok = res[0] < 400;
        const answer = res[1] || {};
        if (!out) return;
        out.textContent = answer.message || "";
        out.className = "result flash " + (ok ? "ok" : "error");
        if (!ok && answer.error === "confirm_replace") {
          // The confirmation names the Pi the number has now (the section's data-occupants,
          // as the hub listed it): if another Pi took the number meanwhile, the hub asks again.
          const sec = section();
          const table = data.get("table") || "";
          let occupants = {};
          try { occupants = JSON.parse((sec && sec.dataset.occupants) || "{}"); } catch (e) { occupants = {}; }
          const pi = occupants[table];
          if (pi) {
            const button = document.createElement("button");
            button.type = "button";
            button.className = "small danger";
            button.dataset.confirmReplace = table;
            button.textContent = ((sec && sec.dataset.replaceLabel) || "{table} {pi}")
              .replace("{table}", table).replace("{pi}", pi);
            button.addEventListener("click", function () { post(form, { replace: pi }); });
            out.appendChild(button);
          } else {
            refetch();
          }
        }
        if (ok) {
          const main = document.getElementById("action-result");
          if (main) { main.textContent = answer.message || ""; main.className = "result flash ok"; }
          refetch();
        }
      })
      .catch(function () {
        if (out) { out.textContent = "…"; out.className = "result flash error"; }
      });
  }

  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (!form.matches || !form.matches("form[data-enrol]")) return;
    evt.preventDefault();
    post(form, null);
  });
})();
