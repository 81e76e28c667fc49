/* Mesa live view: server-sent events with reconnect and catch-up, clocks ticking locally from
   the last snapshot, and a sound and a flash while a table calls the director.

   The server renders every table card (in the page's language); this script only swaps cards,
   counts clocks down between snapshots and keeps the connection alive. Every card carries the
   server time its figures were valid at (data-as-of); the page and every event carry the
   server's "now", so a wrong clock on the phone does not make the clocks drift. */
(function () {
  "use strict";

  const body = document.body;
  const streamUrl = body.dataset.stream;
  const conn = document.getElementById("conn");
  const grid = document.getElementById("grid");
  let offset = parseFloat(body.dataset.serverNow || "0") - Date.now() / 1000;
  let source = null;
  let retryDelay = 1000;
  let soundOn = false;
  let audio = null;
  let lastBeep = 0;

  function serverNow() { return Date.now() / 1000 + offset; }

  function setConn(state) {
    if (!conn) return;
    conn.dataset.state = state;
    conn.textContent = conn.dataset["label" + state.charAt(0).toUpperCase() + state.slice(1)] || state;
  }

  /* The one clock rule of mesa.words.format_clock, mirrored: rounded DOWN (a clock never shows
     time the player does not have), "—" for a figure that is not a number. The same vectors
     (tests/support/format_vectors.json) check both, this one in Chromium. */
  function fmtClock(seconds) {
    if (typeof seconds !== "number" || !isFinite(seconds)) return "—";
    let whole = Math.floor(Math.max(0, seconds) + 1e-9);
    const h = Math.floor(whole / 3600);
    whole -= h * 3600;
    const m = Math.floor(whole / 60);
    const s = whole - m * 60;
    const ss = (s < 10 ? "0" : "") + s;
    if (h) return h + ":" + (m < 10 ? "0" : "") + m + ":" + ss;
    return m + ":" + ss;
  }
  window.mesaFormat = { clock: fmtClock };

  /* ── clocks and countdowns ── */
  function tick() {
    const now = serverNow();
    document.querySelectorAll("[data-clock]").forEach(function (el) {
      const card = el.closest("[data-as-of]");
      const asOf = parseFloat(card ? card.dataset.asOf : el.dataset.asOf);
      let reserve = parseFloat(el.dataset.reserve);
      let delay = parseFloat(el.dataset.delay);
      const rate = parseFloat(el.dataset.rate || "1");
      if (el.dataset.running === "1") {
        // Table seconds: the demo's tables run faster than the wall clock.
        const elapsed = Math.max(0, now - asOf) * rate;
        const used = Math.max(0, elapsed - delay);
        delay = Math.max(0, delay - elapsed);
        reserve = reserve - used;
      }
      const flag = reserve <= 0 && el.dataset.running === "1";
      reserve = Math.max(0, reserve);
      const shown = el.dataset.display === "bronstein" ? reserve + delay : reserve;
      const main = el.querySelector(".reserve");
      const d = el.querySelector(".delay");
      if (main) main.textContent = fmtClock(shown);
      if (d) d.textContent = el.dataset.display === "bronstein" ? "" : "+" + Math.ceil(delay);
      const low = parseFloat(el.dataset.low || "0");
      el.classList.toggle("low", !flag && low > 0 && reserve <= low);
      el.classList.toggle("flag", flag);
    });
    document.querySelectorAll("[data-countdown]").forEach(function (el) {
      const card = el.closest("[data-as-of]");
      const asOf = parseFloat(card ? card.dataset.asOf : el.dataset.asOf);
      const rate = parseFloat(el.dataset.rate || "1");
      const left = parseFloat(el.dataset.countdown) - Math.max(0, now - asOf) * rate;
      el.textContent = fmtClock(left);
    });
    document.querySelectorAll("[data-age]").forEach(function (el) {
      const card = el.closest("[data-as-of]");
      const asOf = parseFloat(card ? card.dataset.asOf : el.dataset.asOf);
      el.textContent = fmtClock(parseFloat(el.dataset.age) + Math.max(0, now - asOf));
    });
    alertDirector();
  }

  /* ── the director's call: flash (CSS) and a beep every 2 s until cleared ── */
  function beep() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = "square";
      osc.frequency.value = 880;
      gain.gain.value = 0.08;
      osc.connect(gain);
      gain.connect(audio.destination);
      osc.start();
      osc.stop(audio.currentTime + 0.25);
    } catch (e) { /* no audio on this device */ }
  }

  function alertDirector() {
    const calling = document.querySelectorAll(".card[data-call='1']");
    body.dataset.calling = String(calling.length);
    if (calling.length && soundOn && Date.now() - lastBeep > 2000) {
      lastBeep = Date.now();
      beep();
    }
  }

  const soundButton = document.getElementById("sound");
  if (soundButton) {
    soundButton.addEventListener("click", function () {
      soundOn = true; // browsers allow audio only after a click
      beep();
      soundButton.textContent = soundButton.dataset.on;
      soundButton.disabled = true;
    });
  }

  /* ── applying what the server sends ── */
  const pending = new Map(); // table id -> html held back while the director types in it

  function typingIn(el) {
    const f = document.activeElement;
    return !!(el && f && el.contains(f) &&
      f.matches("input:not([type=hidden]):not([type=checkbox]), select, textarea"));
  }

  document.addEventListener("focusout", function (evt) {
    const card = evt.target.closest && evt.target.closest(".card");
    if (!card || !pending.has(card.dataset.table)) return;
    setTimeout(function () {
      const html = pending.get(card.dataset.table);
      if (html !== undefined && !typingIn(card)) {
        pending.delete(card.dataset.table);
        replaceCard(card.dataset.table, html);
      }
    }, 0);
  });

  function replaceCard(id, html) {
    if (!grid) return;
    const old = document.getElementById("table-" + id);
    if (typingIn(old)) { pending.set(id, html); return; } // never yank a field being typed in
    pending.delete(id);
    const tpl = document.createElement("template");
    tpl.innerHTML = html.trim();
    const card = tpl.content.firstElementChild;
    if (!card) { if (old) old.remove(); return; }
    // One event's live view (?t=) shows the tables playing its matches: a table that moves
    // on to another event's match leaves it, one that takes this event's match joins it.
    const only = grid.dataset.event;
    if (only && card.dataset.event !== only) { if (old) old.remove(); return; }
    // Keep an open action panel open across updates, so the director is not interrupted.
    if (old) {
      old.querySelectorAll("details[open]").forEach(function (d) {
        const twin = card.querySelector("details[data-key='" + d.dataset.key + "']");
        if (twin) twin.open = true;
      });
      old.replaceWith(card);
    } else {
      if (grid.dataset.all !== "1" && !only) return; // a one-table page shows only its own table
      const empty = document.getElementById("no-tables");
      if (empty) empty.remove();
      const cards = Array.from(grid.querySelectorAll(".card"));
      const after = cards.find(function (c) { return naturalLess(id, c.dataset.table); });
      grid.insertBefore(card, after || null);
    }
  }

  function naturalLess(a, b) {
    return a.localeCompare(b, undefined, { numeric: true }) < 0;
  }

  function onMessage(evt) {
    const msg = JSON.parse(evt.data);
    if (typeof msg.now === "number") offset = msg.now - Date.now() / 1000;
    if (msg.kind === "table") replaceCard(msg.key, msg.html || "");
    if (msg.kind === "summary") {
      const s = document.getElementById("summary");
      if (s && msg.html) s.innerHTML = msg.html;
    }
    if (msg.kind === "tournament") refreshMain(msg.version);
    // Other scripts of the page (enrol.js) follow the feed without a second connection.
    document.dispatchEvent(new CustomEvent("mesa:feed", { detail: msg }));
    tick();
  }

  /* Pages other than the grid (groups, draw, rankings) refetch their content when the
     tournament changes. A form the director is using (a field has the focus, or something
     was typed, ticked or picked in it) is kept as it is, node and listeners included: only
     the rest of the page is replaced around it. */
  let shownVersion = body.dataset.tournamentVersion || null;
  let refreshing = false;
  let again = false;
  let note = null; // the answer to a form posted by script, shown again after the refresh
  document.addEventListener("input", markDirty);
  document.addEventListener("change", markDirty);
  function markDirty(evt) {
    const form = evt.target.closest && evt.target.closest("#content form");
    if (form && !evt.target.matches("[data-filter]")) form.dataset.dirty = "1";
  }
  function busy(el) {
    if (el.dataset && el.dataset.dirty === "1") return true;
    const f = document.activeElement;
    return !!(f && f !== document.body && el.contains(f) &&
      f.matches("input:not([type=hidden]):not([type=checkbox]):not([type=submit]), select, textarea"));
  }
  function busyForms(main) {
    return Array.from(main.querySelectorAll("form")).filter(busy);
  }
  function merge(main, html) {
    const kept = busyForms(main);
    const focused = document.activeElement; // before the kept forms move (that blurs them)
    let caret = null;
    try {
      if (focused && typeof focused.selectionStart === "number") caret = [focused.selectionStart, focused.selectionEnd];
    } catch (e) { /* an input without a caret */ }
    // The attribute, not ``form.id``: a form with a field named "id" (create a tournament)
    // answers ``form.id`` with that field, and was never kept (what was typed, lost).
    const idOf = function (f) { return f.getAttribute("id"); };
    if (kept.some(function (f) { return !idOf(f); })) return false; // cannot place it: wait
    const tpl = document.createElement("template");
    tpl.innerHTML = html;
    kept.forEach(function (old) {
      const twin = tpl.content.getElementById(idOf(old));
      if (twin) twin.replaceWith(old); // the very node: value, file, focus, listeners
    });
    main.querySelectorAll("details[open][data-key]").forEach(function (d) {
      const twin = tpl.content.querySelector("details[data-key='" + d.dataset.key + "']");
      if (twin) twin.open = true;
    });
    const filters = Array.from(main.querySelectorAll("input[data-filter]")).map(function (i) {
      return [i.id, i.value];
    });
    main.replaceChildren(tpl.content);
    // Moving a kept form out of the page and back drops its focus: give it back.
    if (focused && focused !== document.body && focused.isConnected && document.activeElement !== focused) {
      focused.focus({ preventScroll: true });
      if (caret) { try { focused.setSelectionRange(caret[0], caret[1]); } catch (e) { /* not text */ } }
    }
    filters.forEach(function (pair) {
      const input = pair[0] && document.getElementById(pair[0]);
      if (input && pair[1]) { input.value = pair[1]; applyFilter(input); }
    });
    return true;
  }
  function refreshMain(version, force) {
    if (body.dataset.refresh !== "tournament") return;
    if (!force && version === shownVersion) return;
    if (refreshing) { again = true; return; }
    refreshing = true;
    fetch(window.location.href, { headers: { "X-Mesa-Fragment": "main" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        const main = document.getElementById("content");
        if (main && merge(main, html) && version) shownVersion = version;
        const form = note && document.getElementById(note.form);
        const out = form && form.querySelector(".result");
        if (out && Date.now() < note.until) { out.textContent = note.text; out.className = note.cls; }
      })
      .catch(function () { /* keep what is shown; the next change retries */ })
      .finally(function () {
        refreshing = false;
        tick();
        if (again) { again = false; refreshMain(null, true); }
      });
  }

  /* The registry list filters as the director types (accents and case ignored). */
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase().trim();
  }
  function applyFilter(input) {
    const list = document.getElementById(input.dataset.filter);
    if (!list) return;
    const q = fold(input.value);
    list.querySelectorAll("[data-name]").forEach(function (row) {
      row.hidden = q !== "" && fold(row.dataset.name).indexOf(q) < 0;
    });
  }
  document.addEventListener("input", function (evt) {
    if (evt.target.matches && evt.target.matches("input[data-filter]")) applyFilter(evt.target);
  });
  /* A box in a table head ticks every visible box of its name in the same form. */
  document.addEventListener("change", function (evt) {
    const all = evt.target;
    if (!all.matches || !all.matches("input[data-check-all]") || !all.form) return;
    all.form.querySelectorAll("input[type=checkbox][name='" + all.dataset.checkAll + "']")
      .forEach(function (box) { if (!box.closest("[hidden]")) box.checked = all.checked; });
  });

  function connect() {
    if (!streamUrl || !window.EventSource) return;
    source = new EventSource(streamUrl);
    source.addEventListener("open", function () { setConn("live"); retryDelay = 1000; });
    ["table", "summary", "tournament", "enrolment", "hello"].forEach(function (name) {
      source.addEventListener(name, onMessage);
    });
    source.addEventListener("error", function () {
      // EventSource retries by itself (sending Last-Event-ID, so the server sends only what
      // changed); if the browser gave up, start a new one after a growing pause.
      setConn(navigator.onLine === false ? "offline" : "reconnecting");
      if (source.readyState === EventSource.CLOSED) {
        source = null;
        setTimeout(connect, retryDelay);
        retryDelay = Math.min(retryDelay * 2, 15000);
      }
    });
  }

  window.addEventListener("online", function () { if (!source) connect(); });
  /* A form that asks first (closing the tournament); in the capture phase, so a refusal stops
     the async submit below too. A script, not an onsubmit attribute: the CSP forbids those. */
  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (!form.matches || !form.matches("form[data-confirm]")) return;
    if (!window.confirm(form.dataset.confirm)) {
      evt.preventDefault();
      evt.stopImmediatePropagation();
    }
  }, true);

  /* Before a submit: a question to confirm (data-ask), a table that is offline or busy. */
  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (form.dataset && form.dataset.ask && !window.confirm(form.dataset.ask)) {
      evt.preventDefault();
      evt.stopImmediatePropagation();
      return;
    }
    const select = form.querySelector && form.querySelector("select[data-warn-select]");
    if (select) {
      const option = select.options[select.selectedIndex];
      const flag = form.querySelector("input[name=confirm_table]");
      if (option && option.dataset.warn) {
        if (!window.confirm(option.dataset.warn)) {
          evt.preventDefault();
          evt.stopImmediatePropagation();
          return;
        }
        if (flag) flag.value = "1";
      } else if (flag) {
        flag.value = "";
      }
    }
  }, true);

  /* Forms posted by script keep the page where it is; a plain submit still works without it. */
  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (!form.matches || !form.matches("form[data-async]")) return;
    evt.preventDefault();
    const submitter = evt.submitter || null;
    const data = new URLSearchParams(new FormData(form, submitter));
    const action = submitter && submitter.hasAttribute("formaction") ? submitter.formAction : form.action;
    const out = form.querySelector(".result") || document.getElementById("action-result");
    if (submitter) submitter.disabled = true;
    fetch(action, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRF-Token": body.dataset.csrf || "" },
    }).then(function (r) { return r.json().then(function (j) { return [r.status, j]; }); })
      .then(function (res) {
        const ok = res[0] < 400;
        if (out) {
          out.textContent = res[1].message || "";
          out.className = "result flash " + (ok ? "ok" : "error");
        }
        if (ok) {
          delete form.dataset.dirty;
          form.querySelectorAll("textarea, input[type=text], input[type=search]").forEach(function (i) { i.value = ""; });
          if (form.hasAttribute("data-keep-focus")) {
            const first = form.querySelector("input[type=text]");
            if (first) first.focus();
          }
        } else if (form.hasAttribute("data-keep-focus")) {
          const first = form.querySelector("input[type=text]");
          if (first) { first.value = ""; first.focus(); }
        }
        if (ok && form.hasAttribute("data-refresh") && form.id) {
          // shown again after each refresh for a while (another change may refresh twice)
          note = { form: form.id, text: out ? out.textContent : "", cls: out ? out.className : "",
                   until: Date.now() + 20000 };
          refreshMain(null, true);
        }
      })
      .catch(function () {
        if (out) { out.textContent = conn ? conn.dataset.labelOffline : "offline"; out.className = "result flash error"; }
      })
      .finally(function () { if (submitter) submitter.disabled = false; });
  });

  /* A file picked for an import goes to the hub as it is (its bytes, base64: no multipart
     needed), which decodes it (UTF-8 with or without BOM, else Windows-1252: a browser reading
     an Excel file as UTF-8 has already lost its accents) and answers the text and a preview of
     what the import would do; the text fills the textarea. A form without a preview address
     reads the file here. Listened for on the document: a refreshed page needs no new listener. */
  function base64Of(buffer) {
    const bytes = new Uint8Array(buffer);
    let chars = "";
    for (let i = 0; i < bytes.length; i += 0x8000) {
      chars += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    }
    return btoa(chars);
  }
  function cell(row, text, cls) {
    const td = document.createElement("td");
    td.textContent = text;
    if (cls) td.className = cls;
    row.appendChild(td);
  }
  function showPreview(form, ok, answer) {
    const box = form.querySelector(".import-preview");
    if (!box) return;
    box.hidden = false;
    box.classList.toggle("refused", !ok);
    const summary = box.querySelector(".summary");
    const table = box.querySelector("table");
    const tbody = box.querySelector("tbody");
    const names = box.querySelector(".new-names");
    tbody.replaceChildren();
    summary.textContent = ok ? answer.summary : (answer.message || "");
    summary.className = "summary flash " + (ok ? "info" : "error");
    table.hidden = !ok;
    names.hidden = !ok || !answer.new_count;
    if (!ok) return;
    answer.rows.forEach(function (r) {
      const tr = document.createElement("tr");
      cell(tr, String(r.line), "num");
      cell(tr, r.name);
      cell(tr, r.points, "num");
      cell(tr, r.player_id ? r.player_id + " · " + box.dataset.known : box.dataset.new, r.player_id ? "" : "new");
      tbody.appendChild(tr);
    });
    const list = names.querySelector("span");
    list.textContent = answer.new_names.join(", ") + (answer.new_count > answer.new_names.length ? ", …" : "");
    names.querySelector("strong").textContent = names.dataset.label + " (" + answer.new_count + "):";
  }
  function askPreview(form, fields) {
    const data = new URLSearchParams(fields);
    const missing = form.querySelector("input[name=create_missing]");
    if (missing && missing.checked) data.set("create_missing", "1");
    const tid = form.querySelector("input[name=t]");
    if (tid && tid.value) data.set("t", tid.value);
    return fetch(form.dataset.preview, {
      method: "POST",
      body: data,
      credentials: "same-origin",
      headers: { "Accept": "application/json", "X-CSRF-Token": body.dataset.csrf || "" },
    }).then(function (r) { return r.json().then(function (j) { return [r.status < 400, j]; }); })
      .then(function (res) { showPreview(form, res[0], res[1]); return res; })
      .catch(function () {
        showPreview(form, false, { message: conn ? conn.dataset.labelOffline : "offline" });
        return [false, {}];
      });
  }
  document.addEventListener("change", function (evt) {
    const input = evt.target;
    if (!input.matches || !input.matches("input[type=file][data-into]")) return;
    const file = input.files && input.files[0];
    const target = document.getElementById(input.dataset.into);
    if (!file || !target) return;
    const form = target.form;
    if (!form || !form.dataset.preview) {
      file.text().then(function (text) {
        target.value = text;
        if (form) form.dataset.dirty = "1";
      });
      return;
    }
    form.dataset.dirty = "1";
    file.arrayBuffer().then(function (buffer) {
      return askPreview(form, { file: base64Of(buffer) });
    }).then(function (res) {
      target.value = res[0] ? res[1].text : "";
      form.previewedText = res[0] ? target.value : null;
      if (!res[0]) input.value = ""; // picking the same file again, fixed, is a change
    });
  });
  /* A preview says what one text would do: once the text changes, it is put away. */
  document.addEventListener("input", function (evt) {
    const form = evt.target.form;
    if (!form || !form.dataset.preview || !evt.target.matches("textarea")) return;
    const box = form.querySelector(".import-preview");
    if (box) box.hidden = true;
    form.previewedText = null; // the next press shows the preview again
  });
  /* An import is sent only once its preview was seen for exactly the text in the box: the
     first press shows it, the second imports. In the capture phase, before any other. */
  document.addEventListener("submit", function (evt) {
    const form = evt.target;
    if (!form.matches || !form.matches("form[data-preview]")) return;
    const box = form.querySelector("textarea");
    if (!box || box.value === form.previewedText) return;
    evt.preventDefault();
    evt.stopImmediatePropagation();
    askPreview(form, { csv: box.value }).then(function (res) {
      if (!res[0]) return;
      form.previewedText = box.value;
      const summary = form.querySelector(".import-preview .summary");
      if (summary) summary.textContent += " " + form.querySelector(".import-preview").dataset.confirm;
    });
  }, true);

  setConn("reconnecting");
  connect();
  tick();
  setInterval(tick, 250);
})();
