/* A table or panel too wide for a phone scrolls inside itself (mesa.css): a keyboard must be
   able to reach it too (WCAG 2.1.1), so each one that overflows takes the focus and says what
   it holds. Runs on every page, again when the window changes size or the page refreshes a
   part of itself (live.js swaps content in). */
(function () {
  "use strict";
  function mark() {
    document.querySelectorAll("main table, main .panel, main pre").forEach(function (el) {
      const wide = el.scrollWidth > el.clientWidth + 1;
      if (wide && !el.hasAttribute("tabindex")) {
        el.setAttribute("tabindex", "0");
        el.dataset.scrollFocus = "1";
        if (!el.getAttribute("aria-label") && !el.getAttribute("aria-labelledby")) {
          const caption = el.querySelector("caption");
          const heading = el.previousElementSibling;
          const name = caption ? caption.textContent :
            (heading && /^H[1-6]$/.test(heading.tagName) ? heading.textContent : "");
          if (name) el.setAttribute("aria-label", name.trim());
        }
      } else if (!wide && el.dataset.scrollFocus === "1") {
        el.removeAttribute("tabindex");
        delete el.dataset.scrollFocus;
      }
    });
  }
  let pending = false;
  function soon() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; mark(); });
  }
  window.addEventListener("resize", soon);
  document.addEventListener("DOMContentLoaded", mark);
  new MutationObserver(soon).observe(document.documentElement, { childList: true, subtree: true });
})();
