/* fairdeal viewer: stepping without reloads. Every control is also a plain link, so the page
   works without this script; with it, steps are fetched as small JSON fragments and cached. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");

  function copyText(text, button) {
    function done(ok) {
      if (!button) return;
      var old = button.textContent;
      button.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(function () { button.textContent = old; }, 1400);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () { done(true); }, function () { fallback(); });
    } else { fallback(); }
    function fallback() {
      var area = document.createElement("textarea");
      area.value = text; area.setAttribute("readonly", ""); area.style.position = "fixed"; area.style.opacity = "0";
      document.body.appendChild(area); area.select();
      var ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      document.body.removeChild(area);
      done(ok);
    }
  }

  document.querySelectorAll(".js-copy").forEach(function (button) {
    button.addEventListener("click", function () {
      var target = document.getElementById(button.getAttribute("data-copy-target"));
      if (target) copyText(target.textContent.trim(), button);
    });
  });

  // drag and drop on the upload boxes
  document.querySelectorAll(".drop").forEach(function (drop) {
    var input = drop.querySelector("input[type=file]");
    ["dragenter", "dragover"].forEach(function (name) {
      drop.addEventListener(name, function (e) { e.preventDefault(); drop.classList.add("is-over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      drop.addEventListener(name, function () { drop.classList.remove("is-over"); });
    });
    drop.addEventListener("drop", function (e) {
      e.preventDefault();
      if (input && e.dataTransfer && e.dataTransfer.files.length) {
        input.files = e.dataTransfer.files;
        var label = drop.querySelector("span");
        if (label) label.textContent = e.dataTransfer.files[0].name;
      }
    });
  });

  var stepper = document.getElementById("stepper");
  if (!stepper) return;

  var base = stepper.getAttribute("data-base");
  var fragments = stepper.getAttribute("data-fragments") || base;
  var last = parseInt(stepper.getAttribute("data-last"), 10);
  var current = parseInt(stepper.getAttribute("data-step"), 10);
  var view = stepper.getAttribute("data-view");
  var viewQuery = stepper.getAttribute("data-view-query") || "";
  var board = document.getElementById("board");
  var captionText = document.getElementById("caption-text");
  var actor = document.getElementById("actor");
  var slider = document.getElementById("slider");
  var counter = document.getElementById("step-number");
  var list = document.getElementById("event-list");
  var playButton = document.getElementById("play");
  var speed = document.getElementById("speed");
  var copyLink = document.getElementById("copy-link");
  var cache = new Map();
  var pending = null;
  var timer = null;

  function stepUrl(n) { return base + "?step=" + n + viewQuery + "#" + n; }
  function fragmentUrl(n) { return fragments + "/step/" + n + ".json" + (view && view !== "all" ? "?view=" + encodeURIComponent(view) : ""); }

  function fetchStep(n) {
    if (cache.has(n)) return cache.get(n);
    var promise = fetch(fragmentUrl(n), { headers: { Accept: "application/json" } }).then(function (r) {
      if (!r.ok) throw new Error("step " + n + ": HTTP " + r.status);
      return r.json();
    });
    cache.set(n, promise);
    promise.catch(function () { cache.delete(n); });
    return promise;
  }

  function setLinks(n) {
    var ids = { first: 0, prev: Math.max(n - 1, 0), next: Math.min(n + 1, last), lastbtn: last };
    Object.keys(ids).forEach(function (id) {
      var link = document.getElementById(id);
      if (link) link.setAttribute("href", stepUrl(ids[id]));
    });
    document.querySelectorAll(".perspective .chip").forEach(function (chip) {
      var key = chip.getAttribute("data-view");
      chip.setAttribute("href", base + "?step=" + n + (key === "all" ? "" : "&view=" + key) + "#" + n);
    });
    var dispute = document.getElementById("dispute-link");
    // the match's own report, not the embed's (an embed has no dispute page of its own)
    if (dispute) dispute.setAttribute("href", fragments + "/dispute?step=" + n);
    if (copyLink) {
      var url = copyLink.getAttribute("data-url").replace(/\?step=\d+.*$/, "");
      copyLink.setAttribute("data-url", url + "?step=" + n + viewQuery);
    }
  }

  function markEvent(n) {
    if (!list) return;
    var old = list.querySelectorAll(".is-current");
    old.forEach(function (row) { row.classList.remove("is-current"); row.removeAttribute("aria-current"); });
    var row = list.querySelector('li[data-step="' + n + '"]');
    if (row) {
      row.classList.add("is-current");
      row.setAttribute("aria-current", "step");
      // keep the current event in view inside the list, without moving the page
      var top = row.offsetTop - list.offsetTop;
      if (top < list.scrollTop || top + row.offsetHeight > list.scrollTop + list.clientHeight) {
        list.scrollTop = top - list.clientHeight / 3;
      }
    }
  }

  function show(data) {
    board.innerHTML = data.board;
    captionText.textContent = data.caption;
    if (actor) { actor.textContent = data.actor; actor.hidden = !data.actor; }
  }

  function go(n, fromHash) {
    n = Math.max(0, Math.min(last, n | 0));
    if (n === current && !fromHash) return Promise.resolve();
    current = n;
    stepper.setAttribute("data-step", String(n));
    counter.textContent = String(n);
    slider.value = String(n);
    setLinks(n);
    markEvent(n);
    history.replaceState(null, "", stepUrl(n));
    pending = n;
    return fetchStep(n).then(function (data) {
      if (pending !== n) return;
      show(data);
      stepper.setAttribute("data-shown", String(n));
      if (n + 1 <= last) fetchStep(n + 1);
    }, function (err) {
      window.location.href = stepUrl(n);  // the plain link always works
      throw err;
    });
  }
  stepper.setAttribute("data-shown", String(current));
  window.fairdealGo = go;

  function intercept(id, target) {
    var link = document.getElementById(id);
    if (!link) return;
    link.addEventListener("click", function (e) { e.preventDefault(); stop(); go(target()); });
  }
  intercept("first", function () { return 0; });
  intercept("prev", function () { return current - 1; });
  intercept("next", function () { return current + 1; });
  intercept("lastbtn", function () { return last; });

  slider.addEventListener("input", function () { stop(); go(parseInt(slider.value, 10)); });

  if (list) {
    list.addEventListener("click", function (e) {
      var link = e.target.closest("a[data-step]");
      if (!link || e.metaKey || e.ctrlKey || e.shiftKey) return;
      e.preventDefault(); stop();
      go(parseInt(link.getAttribute("data-step"), 10));
    });
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    var tag = (e.target && e.target.tagName) || "";
    if (tag === "INPUT" && e.target !== slider || tag === "TEXTAREA" || tag === "SELECT") return;
    var target = null;
    if (e.key === "ArrowLeft") target = current - 1;
    else if (e.key === "ArrowRight") target = current + 1;
    else if (e.key === "Home") target = 0;
    else if (e.key === "End") target = last;
    else if (e.key === " " && tag !== "BUTTON" && tag !== "A") { e.preventDefault(); toggle(); return; }
    if (target === null) return;
    e.preventDefault(); stop(); go(target);
  });

  function stop() {
    if (timer) { clearInterval(timer); timer = null; }
    if (playButton) { playButton.setAttribute("aria-pressed", "false"); }
  }
  function start() {
    if (current >= last) go(0);
    timer = setInterval(function () {
      if (current >= last) { stop(); return; }
      go(current + 1);
    }, parseInt(speed ? speed.value : "1000", 10));
    playButton.setAttribute("aria-pressed", "true");
  }
  function toggle() { if (timer) stop(); else start(); }
  if (playButton) playButton.addEventListener("click", toggle);
  if (speed) speed.addEventListener("change", function () { if (timer) { stop(); start(); } });

  if (copyLink) {
    copyLink.addEventListener("click", function () {
      copyText(copyLink.getAttribute("data-url") + "#" + current, copyLink);
    });
  }

  // a shared link with only "#17" (or a hash edited by hand) opens that step
  function fromHash() {
    var match = /^#(\d+)$/.exec(window.location.hash);
    if (match) { var n = parseInt(match[1], 10); if (n !== current) go(n, true); }
  }
  window.addEventListener("hashchange", fromHash);
  fromHash();
  markEvent(current);
})();

// live matches: poll the public events and reload when a new one arrives
(function () {
  "use strict";
  var live = document.querySelector("[data-live-url]");
  if (!live) return;
  var url = live.getAttribute("data-live-url");
  var seen = parseInt(live.getAttribute("data-live-events"), 10);
  function poll() {
    fetch(url, { headers: { Accept: "application/json" } }).then(function (r) { return r.json(); }).then(function (data) {
      if (data.events !== seen || data.ended) { window.location.reload(); return; }
      setTimeout(poll, 2000);
    }, function () { setTimeout(poll, 5000); });
  }
  setTimeout(poll, 2000);
})();
