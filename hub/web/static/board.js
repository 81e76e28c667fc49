/* The call board and a player's next-match page: refetch the page's content when a table or the
   tournament changes (server-sent events, at most about once a second), and chime when a new
   call appears if the chime is switched on (browsers play sound only after a click).

   The base page's live.js keeps the connection indicator; this script only refreshes content. */
(function () {
  "use strict";

  const body = document.body;
  const streamUrl = body.dataset.stream;
  let chimeOn = false;
  let audio = null;
  let timer = null;
  let busy = false;

  function calledIds() {
    const ids = new Set();
    document.querySelectorAll("[data-called='1']").forEach(function (el) { ids.add(el.dataset.match); });
    return ids;
  }
  let known = calledIds();

  function chime() {
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      [660, 880].forEach(function (freq, i) {
        const osc = audio.createOscillator();
        const gain = audio.createGain();
        osc.type = "sine";
        osc.frequency.value = freq;
        gain.gain.value = 0.15;
        osc.connect(gain);
        gain.connect(audio.destination);
        const at = audio.currentTime + i * 0.3;
        osc.start(at);
        osc.stop(at + 0.28);
      });
    } catch (e) { /* no audio on this device */ }
  }

  function showToggle() {
    const button = document.getElementById("chime");
    if (!button) return;
    button.setAttribute("aria-pressed", String(chimeOn));
    button.textContent = chimeOn ? button.dataset.on : button.dataset.off;
  }

  document.addEventListener("click", function (evt) {
    const button = evt.target.closest && evt.target.closest("#chime");
    if (!button) return;
    chimeOn = !chimeOn;
    showToggle();
    if (chimeOn) chime();
  });

  function refresh() {
    timer = null;
    if (busy) { schedule(); return; }
    busy = true;
    fetch(window.location.href, { headers: { "X-Mesa-Fragment": "main" }, credentials: "same-origin" })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        const content = document.getElementById("content");
        if (!content) return;
        content.innerHTML = html;
        showToggle();
        const now = calledIds();
        let fresh = false;
        now.forEach(function (id) { if (!known.has(id)) fresh = true; });
        known = now;
        body.dataset.calls = String(now.size);
        if (fresh && chimeOn) chime();
      })
      .catch(function () { /* keep what is shown; the next change retries */ })
      .finally(function () { busy = false; });
  }

  function schedule() {
    if (!timer) timer = setTimeout(refresh, 800);
  }

  if (streamUrl && window.EventSource) {
    const source = new EventSource(streamUrl);
    ["table", "tournament"].forEach(function (name) { source.addEventListener(name, schedule); });
  }
})();
