// A live tournament's page: poll live.json every few seconds and, when the log has grown,
// replace the standings, rounds and disputes (#t-live) with the fresh page's; when its
// status changes (started, finished) the whole page reloads: its heading and verification
// panel change too.
(function () {
  "use strict";
  var live = document.querySelector("#t-live[data-live-url]");
  if (!live || !window.fetch) return;
  var url = live.getAttribute("data-live-url");
  var seen = live.getAttribute("data-next-seq");
  var status = live.getAttribute("data-status");
  var every = parseInt(live.getAttribute("data-poll-ms") || "5000", 10);
  function refresh() {
    return fetch(window.location.href, { headers: { Accept: "text/html" } })
      .then(function (response) { return response.ok ? response.text() : null; })
      .then(function (html) {
        if (!html) return;
        var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("#t-live");
        if (!fresh) return;
        live.innerHTML = fresh.innerHTML;
        seen = fresh.getAttribute("data-next-seq") || seen;
        live.setAttribute("data-next-seq", seen);
        live.setAttribute("data-refreshed", String(Date.now()));
      });
  }
  function poll() {
    fetch(url, { headers: { Accept: "application/json" } })
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (state) {
        if (!state) return null;
        if (state.status !== status) { window.location.reload(); return null; }
        if (String(state.next_seq) !== String(seen)) return refresh();
        return null;
      })
      .catch(function () { /* the next poll tries again */ })
      .then(function () { window.setTimeout(poll, every); });
  }
  window.setTimeout(poll, every);
})();
