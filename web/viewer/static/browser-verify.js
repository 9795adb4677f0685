/* fairdeal: verify in the visitor's own browser. The bundle's bytes (exactly the file
   `fairdeal verify` reads) go to a Web Worker running fairdeal's verifier under Pyodide; the
   result is shown beside the server's, and any disagreement loudly. On /verify the files never
   leave the browser: nothing here sends anything but GETs to this site. Neither do the seat keys
   and the receipts a visitor gives (what `fairdeal verify --seat-key` and `--receipts` take):
   they are kept in this page's memory and handed to the worker only. */
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
      if (answer.error) pending.reject(new Error(answer.error));
      else if (answer.inputError) pending.reject(new InputError(answer.inputError));
      else pending.resolve(answer.archive || answer.report);
    };
    worker.onerror = function (event) {
      event.preventDefault();
      broken = new Error(event.message || "the verifier could not start");
      Object.keys(waiting).forEach(function (id) {
        waiting[id].reject(broken);
        delete waiting[id];
      });
    };
    function ask(message, transfer) {
      if (broken) return Promise.reject(broken);
      var id = next++;
      message.id = id;
      return new Promise(function (resolve, reject) {
        waiting[id] = { resolve: resolve, reject: reject };
        worker.postMessage(message, transfer);
      });
    }
    // inputs: {seatKeys: text|null, receipts: ArrayBuffer|null}, as the command line takes them
    this.verify = function (bytes, trustedKey, inputs) {
      var copy = bytes.slice(0);  // the worker takes this copy; the page keeps the original
      var receipts = inputs && inputs.receipts ? inputs.receipts.slice(0) : null;
      return ask({ bundle: copy, trustedKey: trustedKey || null,
                   seatKeys: inputs && inputs.seatKeys || null, receipts: receipts },
                 receipts ? [copy, receipts] : [copy]);
    };
    // {sha256, bytes} of the fairdeal.zip the worker loaded (it starts the verifier)
    this.archive = function () { return ask({ hash: true }, []); };
  }

  function InputError(message) { this.message = message; }
  InputError.prototype = Object.create(Error.prototype);

  // --- what the visitor verifies with: the verifier's own hash, seat keys, receipts ---------
  function showArchive(verifier) {
    var box = document.getElementById("verifier-hash");
    if (!box) return;
    verifier.archive().then(function (archive) {
      var shown = document.getElementById("verifier-hash-value");
      shown.textContent = archive.sha256;
      box.setAttribute("data-sha256", archive.sha256);
      var claimed = box.getAttribute("data-server-sha256");
      // the server names its own archive: different bytes arrived (a stale cache, a proxy)
      var differs = document.getElementById("verifier-hash-differs");
      differs.hidden = archive.sha256 === claimed;
      box.setAttribute("data-state", archive.sha256 === claimed ? "loaded" : "differs");
    }, function (error) {
      box.setAttribute("data-state", "error");
      document.getElementById("verifier-hash-value").textContent =
        "not computed (" + error.message + ")";
    });
  }

  // the seat keys and receipts file: in this page's memory only, read when a check starts
  function Inputs(onChange) {
    var seatKeys = document.getElementById("seat-keys");
    var file = document.getElementById("receipts-file");
    var pasted = document.getElementById("receipts-pasted");
    var forget = document.getElementById("forget-inputs");
    var note = document.getElementById("inputs-note");
    var fileBytes = null;
    var fileName = "";
    var reading = Promise.resolve();  // a chosen file being read: a check waits for it
    if (!seatKeys) {
      this.current = function () { return Promise.resolve({ seatKeys: null, receipts: null }); };
      return;
    }
    function describe() {
      var parts = [];
      if (seatKeys.value.trim()) parts.push("seat keys to pin");
      if (fileBytes) parts.push("receipts from " + fileName);
      else if (pasted.value.trim()) parts.push("pasted receipts");
      note.textContent = parts.length ? "Checking with " + parts.join(" and ") +
        " (kept in this page, never sent)." : "";
    }
    // what a check starting now verifies with (once a file being read has been read)
    this.current = function () {
      return reading.then(function () {
        var receipts = fileBytes || (pasted.value.trim() ? new TextEncoder().encode(pasted.value).buffer : null);
        return { seatKeys: seatKeys.value.trim() || null, receipts: receipts };
      });
    };
    file.addEventListener("change", function () {
      var chosen = file.files[0];
      fileBytes = null;
      fileName = "";
      if (!chosen) { describe(); onChange(); return; }
      reading = chosen.arrayBuffer().then(function (buffer) {
        fileBytes = buffer;
        fileName = chosen.name;
        describe();
        onChange();
      });
    });
    document.getElementById("inputs-apply").addEventListener("click", function () {
      describe();
      onChange();
    });
    forget.addEventListener("click", function () {
      seatKeys.value = "";
      pasted.value = "";
      file.value = "";
      fileBytes = null;
      fileName = "";
      describe();
      onChange();
    });
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

  // an event's time as the verifier's reasons quote it (ms since 1970), in UTC ISO 8601, as
  // the server's side of the page writes it (present.py utc_times)
  function utcTimes(text) {
    return String(text).replace(/(^|[^\w.,])(1\d{12})(?!\w|[.,]\d)/g, function (all, before, ms) {
      return before + new Date(Number(ms)).toISOString();
    });
  }

  function failureText(failure) {
    if (!failure) return "";
    var where = failure.seq === null || failure.seq === undefined ? "" : " at event " + failure.seq;
    return failure.check + " check failed" + where + ": " + utcTimes(failure.reason);
  }

  function shortFailure(failure) {
    var where = failure.seq === null || failure.seq === undefined ? "" : " at event " + failure.seq;
    return failure.check + " check failed" + where;
  }

  function influenceText(report) {
    var influence = report.deal_influence;
    return influence && influence.text ? influence.text : "";
  }

  // what the visitor's own seat keys and receipts added to the verdict
  function pinnedText(report) {
    var text = "";
    if (report.seat_keys_pinned && report.seat_keys_pinned.length) {
      text += "; seat keys pinned: " + report.seat_keys_pinned.join(", ");
    }
    report.checks.forEach(function (check) {
      if (check.name === "receipts" && check.status === "pass") text += "; receipts: " + check.detail;
    });
    return text;
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
    var inputs = null;
    var bytes = fetch(box.getAttribute("data-bundle-url"), { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("the bundle could not be fetched (HTTP " + response.status + ")");
        return response.arrayBuffer();
      });

    function show(report) {
      window.fairdealBrowserReport = report;
      panel.classList.add("has-browser");
      var wait = document.getElementById("server-said-wait");
      if (wait) wait.hidden = true;  // the browser's verdict has joined the server's
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
        mark.title = "your browser: " + (mine ? mine.status + (mine.detail ? " — " + utcTimes(mine.detail) : "") : "no such check");
        var server = row.getAttribute("data-status");
        // a check one side never reached follows from an earlier difference: not listed; a
        // check the server skipped and the browser passed is the visitor's own (receipts)
        if (server !== "pending" && server !== state && server !== "not-checked" && state !== "not-checked" &&
            !(server === "skipped" && state === "pass")) {
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
        (report.key_pinned ? "; signed by the key you pinned" : "") + pinnedText(report)));
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
        status.textContent = "Still starting the verifier in your browser… Until it is " +
          "ready, the server's verdict above is the only one; if this never finishes, " +
          "download the bundle and run `fairdeal verify` instead.";
      }, SLOW_MS);
      Promise.all([bytes, inputs.current()])
        .then(function (both) { return verifier.verify(both[0], key, both[1]); })
        .then(function (report) { clearTimeout(slow); show(report); }, function (error) {
          clearTimeout(slow);
          if (error instanceof InputError) {
            box.setAttribute("data-state", "input-error");
            status.textContent = "Not checked: " + error.message + ". Correct it, or forget " +
              "the seat keys and receipts.";
            return;
          }
          box.setAttribute("data-state", "error");
          status.textContent = "The browser verifier could not run: " + error.message +
            ". Download the bundle and run `fairdeal verify` instead.";
        });
    }
    pinForm(function (key) { started = performance.now(); run(key); });
    inputs = new Inputs(function () { started = performance.now(); run(storedKey()); });
    run(storedKey());
    showArchive(verifier);
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
          (report.key_pinned ? " (the key you pinned)" : " (not pinned)") : "") + pinnedText(report)));
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
        if (check.detail) row.appendChild(el("span", "check-detail", utcTimes(check.detail)));
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
      return inputs.current().then(function (given) {
        return verifier.verify(buffer, key, given);
      }).then(function (report) {
        if (run !== generation) return;
        fill(item, report);
        done.push({ name: name, report: report });
      }, function (error) {
        if (error instanceof InputError) {
          item.setAttribute("data-state", "input-error");
          item.textContent = "Not checked: " + error.message + ".";
          done.push({ name: name, inputError: error.message });
          return;
        }
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
    var inputs = new Inputs(function () { if (files.files.length) checkFiles(files.files); });
    box.setAttribute("data-state", "ready");
    showArchive(verifier);
  }

  var matchBox = document.getElementById("browser-verify");
  if (matchBox && matchBox.getAttribute("data-worker")) matchPage(matchBox);
  var verifyBox = document.getElementById("verify-page");
  if (verifyBox && verifyBox.getAttribute("data-worker")) verifyPage(verifyBox);
})();
