/* fairdeal: verify in the visitor's own browser. The bundle's bytes (exactly the file
   `fairdeal verify` reads) go to a Web Worker running fairdeal's verifier under Pyodide; the
   result is shown beside the server's, and any disagreement loudly. On /verify the files never
   leave the browser: nothing here sends anything but GETs to this site. */
(function () {
  "use strict";
  document.documentElement.classList.add("js");
  var KEY_STORE = "fairdeal.pinnedKey";
  var MARKS = { pass: "✓", fail: "✗", skipped: "–", "not-checked": "–" };  // as the server's rows

  // --- the worker ------------------------------------------------------------------------
  function Verifier(workerUrl) {
    var worker = new Worker(workerUrl);
    var waiting = {};
    var next = 1;
    var broken = null;  // set when the worker itself failed: every later request fails at once
    worker.onmessage = function (event) {
      var answer = event.data;
      var pending = waiting[answer.id];
      delete waiting[answer.id];
      if (!pending) return;
      if (answer.error) pending.reject(new Error(answer.error)); else pending.resolve(answer.report);
    };
    worker.onerror = function (event) {
      event.preventDefault();
      broken = new Error(event.message || "the verifier could not start");
      Object.keys(waiting).forEach(function (id) {
        waiting[id].reject(broken);
        delete waiting[id];
      });
    };
    this.verify = function (bytes, trustedKey) {
      if (broken) return Promise.reject(broken);
      var id = next++;
      var copy = bytes.slice(0);  // the worker takes this copy; the page keeps the original
      return new Promise(function (resolve, reject) {
        waiting[id] = { resolve: resolve, reject: reject };
        worker.postMessage({ id: id, bundle: copy, trustedKey: trustedKey || null }, [copy]);
      });
    };
  }

  function storedKey() {
    try { return localStorage.getItem(KEY_STORE) || ""; } catch (e) { return ""; }
  }
  function storeKey(value) {
    try {
      if (value) localStorage.setItem(KEY_STORE, value); else localStorage.removeItem(KEY_STORE);
    } catch (e) { /* private mode: the key lasts for this page only */ }
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function failureText(failure) {
    if (!failure) return "";
    var where = failure.seq === null || failure.seq === undefined ? "" : " at event " + failure.seq;
    return failure.check + " check failed" + where + ": " + failure.reason;
  }

  function shortFailure(failure) {
    var where = failure.seq === null || failure.seq === undefined ? "" : " at event " + failure.seq;
    return failure.check + " check failed" + where;
  }

  function influenceText(report) {
    var influence = report.deal_influence;
    return influence && influence.text ? influence.text : "";
  }

  function summary(report) {
    var browser = report.browser || {};
    return "Python " + browser.python + " in this browser, Ed25519 " + browser.signatures +
      ", " + browser.seconds + " s";
  }

  function pinForm(onPin) {
    var form = document.getElementById("pin-key-form");
    if (!form) return;
    var input = document.getElementById("pinned-key");
    input.value = storedKey();
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      storeKey(input.value.trim());
      onPin(input.value.trim());
    });
    var forget = document.getElementById("forget-key");
    if (forget) forget.addEventListener("click", function () {
      input.value = "";
      storeKey("");
      onPin("");
    });
  }

  // --- the match page: the browser's column beside the server's ---------------------------
  function matchPage(box) {
    var panel = document.getElementById("verification");
    var status = document.getElementById("browser-status");
    var verifier = new Verifier(box.getAttribute("data-worker"));
    var started = performance.now();
    var bytes = fetch(box.getAttribute("data-bundle-url"), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("the bundle could not be fetched (HTTP " + response.status + ")");
        return response.arrayBuffer();
      });

    function show(report) {
      window.fairdealBrowserReport = report;
      panel.classList.add("has-browser");
      var differences = [];
      panel.querySelectorAll(".check-row").forEach(function (row) {
        var name = row.getAttribute("data-check");
        var mine = null;
        report.checks.forEach(function (check) { if (check.name === name) mine = check; });
        var mark = row.querySelector(".browser-mark");
        if (!mark) {
          mark = el("span", "browser-mark");
          row.insertBefore(mark, row.children[1] || null);
        }
        var state = mine ? mine.status : "absent";
        mark.setAttribute("data-browser-status", state);
        mark.textContent = MARKS[state] || "?";
        mark.title = "your browser: " + (mine ? mine.status + (mine.detail ? " — " + mine.detail : "") : "no such check");
        var server = row.getAttribute("data-status");
        // a check one side never reached follows from an earlier difference: not listed
        if (server !== "pending" && server !== state && server !== "not-checked" && state !== "not-checked") {
          differences.push(name + ": server " + server + ", browser " + state);
        }
      });
      var serverFailure = panel.getAttribute("data-failure") || "";
      var mineFailure = report.failure ? report.failure.check + "@" + report.failure.seq : "";
      if (serverFailure !== mineFailure) {
        differences.push("first failure: server " + (serverFailure || "none") + ", browser " + (mineFailure || "none"));
      }
      var serverSaid = panel.getAttribute("data-ok") === "true" ? "every check passed" : "it does not verify";
      status.textContent = "";
      var verdict = el("span", "verdict " + (report.ok ? "ok" : "bad"),
        report.ok ? "✓ every check passed in your browser" : "✗ does not verify in your browser");
      verdict.id = "browser-verdict";
      status.appendChild(verdict);
      status.appendChild(el("span", "muted small", " " + summary(report) +
        (report.key_pinned ? "; signed by the key you pinned" : "")));
      var failure = document.getElementById("browser-failure");
      failure.hidden = !report.failure;
      failure.textContent = failureText(report.failure);
      document.getElementById("browser-influence-line").hidden = !influenceText(report);
      document.getElementById("browser-influence").textContent = influenceText(report);
      var alarm = document.getElementById("browser-disagreement");
      alarm.hidden = differences.length === 0;
      alarm.textContent = "";
      if (differences.length) {
        alarm.appendChild(el("strong", "", "Your browser and the server disagree. "));
        alarm.appendChild(el("span", "", "The server says " + serverSaid + "; your browser says " +
          (report.ok ? "every check passed" : "it does not verify (" + shortFailure(report.failure) + ")") + ". Trust your own " +
          "browser (or `fairdeal verify` on your machine), not the server's word."));
        alarm.appendChild(el("span", "disagreement-detail", " Differences: " + differences.join("; ") + "."));
      }
      box.setAttribute("data-state", differences.length ? "disagree" : "agree");
      box.setAttribute("data-ms", String(Math.round(performance.now() - started)));
    }

    var SLOW_MS = 60000;  // a slow device may take this long to start Python: say so, keep going
    function run(key) {
      box.setAttribute("data-state", "loading");
      var slow = setTimeout(function () {
        status.textContent = "Still starting the verifier in your browser… If this never " +
          "finishes, download the bundle and run `fairdeal verify` instead.";
      }, SLOW_MS);
      bytes.then(function (data) { return verifier.verify(data, key); })
        .then(function (report) { clearTimeout(slow); show(report); }, function (error) {
          clearTimeout(slow);
          box.setAttribute("data-state", "error");
          status.textContent = "The browser verifier could not run: " + error.message +
            ". Download the bundle and run `fairdeal verify` instead.";
        });
    }
    pinForm(function (key) { started = performance.now(); run(key); });
    run(storedKey());
  }

  // --- /verify: files and pasted JSON, checked here, sent nowhere --------------------------
  function verifyPage(box) {
    var verifier = new Verifier(box.getAttribute("data-worker"));
    var results = document.getElementById("verify-results");
    var files = document.getElementById("verify-files");
    var drop = document.getElementById("verify-drop");
    var done = [];
    var generation = 0;  // a new selection replaces the one being checked
    window.fairdealVerifyResults = done;

    function card(name) {
      var item = el("li", "card verify-result");
      item.setAttribute("data-name", name);
      item.setAttribute("data-state", "loading");
      item.appendChild(el("h3", "", name));
      item.appendChild(el("p", "muted", "verifying in your browser…"));
      results.appendChild(item);
      return item;
    }

    function fill(item, report) {
      item.textContent = "";
      item.setAttribute("data-state", "done");
      item.setAttribute("data-ok", String(report.ok));
      if (report.failure) {
        item.setAttribute("data-check", report.failure.check);
        item.setAttribute("data-seq", report.failure.seq === null ? "" : String(report.failure.seq));
      }
      var head = el("h3", "");
      head.appendChild(el("span", "verdict " + (report.ok ? "ok" : "bad"), report.ok ? "✓ verifies" : "✗ does not verify"));
      head.appendChild(document.createTextNode(" " + item.getAttribute("data-name")));
      item.appendChild(head);
      if (report.failure) item.appendChild(el("div", "failure", failureText(report.failure)));
      if (influenceText(report)) {
        var line = el("p", "deal-influence");
        line.appendChild(el("strong", "", "Who could have influenced this deal: "));
        line.appendChild(el("span", "", influenceText(report)));
        item.appendChild(line);
      }
      if (report.match_id) {
        item.appendChild(el("p", "small", report.game + " · match " + report.match_id + " · " +
          report.events + " events" + (report.key_id ? " · signed by key " + report.key_id +
          (report.key_pinned ? " (the key you pinned)" : " (not pinned)") : "")));
      }
      var details = el("details", "every-check");
      details.open = !report.ok;
      details.appendChild(el("summary", "", "every check"));
      var list = el("ol", "checks");
      report.checks.forEach(function (check) {
        var row = el("li", "check-row status-" + check.status);
        row.setAttribute("data-check", check.name);
        row.appendChild(el("span", "check-mark", MARKS[check.status] || "?"));
        row.appendChild(el("span", "check-name", check.name));
        row.appendChild(el("span", "check-status", check.status));
        row.appendChild(el("span", "check-title", check.title));
        if (check.detail) row.appendChild(el("span", "check-detail", check.detail));
        list.appendChild(row);
      });
      details.appendChild(list);
      item.appendChild(details);
      item.appendChild(el("p", "muted small", summary(report)));
    }

    function check(name, buffer, run) {
      if (run !== generation) return Promise.resolve();
      var item = card(name);
      var key = document.getElementById("pinned-key").value.trim();
      return verifier.verify(buffer, key).then(function (report) {
        if (run !== generation) return;
        fill(item, report);
        done.push({ name: name, report: report });
      }, function (error) {
        item.setAttribute("data-state", "error");
        item.textContent = "The browser verifier could not run: " + error.message;
      });
    }

    function start() {
      generation += 1;
      results.textContent = "";
      done.length = 0;
      box.removeAttribute("data-done");
      return generation;
    }

    function checkFiles(list) {
      var run = start();
      var chain = Promise.resolve();
      Array.prototype.forEach.call(list, function (file) {
        chain = chain.then(function () { return run === generation ? file.arrayBuffer() : null; })
          .then(function (buffer) { return buffer && check(file.name, buffer, run); });
      });
      return chain.then(function () {
        if (run === generation) box.setAttribute("data-done", String(done.length));
      });
    }

    files.addEventListener("change", function () { checkFiles(files.files); });
    ["dragenter", "dragover"].forEach(function (name) {
      drop.addEventListener(name, function (e) { e.preventDefault(); drop.classList.add("is-over"); });
    });
    ["dragleave", "drop"].forEach(function (name) {
      drop.addEventListener(name, function () { drop.classList.remove("is-over"); });
    });
    drop.addEventListener("drop", function (e) {
      e.preventDefault();
      if (e.dataTransfer && e.dataTransfer.files.length) checkFiles(e.dataTransfer.files);
    });
    document.getElementById("verify-paste").addEventListener("click", function () {
      var text = document.getElementById("verify-pasted").value;
      var run = start();
      check("pasted JSON", new TextEncoder().encode(text).buffer, run).then(function () {
        if (run === generation) box.setAttribute("data-done", String(done.length));
      });
    });
    pinForm(function () { if (files.files.length) checkFiles(files.files); });
    box.setAttribute("data-state", "ready");
  }

  var matchBox = document.getElementById("browser-verify");
  if (matchBox && matchBox.getAttribute("data-worker")) matchPage(matchBox);
  var verifyBox = document.getElementById("verify-page");
  if (verifyBox && verifyBox.getAttribute("data-worker")) verifyPage(verifyBox);
})();
