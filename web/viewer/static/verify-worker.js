/* fairdeal's verifier in the visitor's browser: a Web Worker that runs Pyodide (served by
   this server, pinned) with fairdeal's own verifier and games packages (one zip, built from the
   server's installed code), so the page stays responsive while a long match is checked.

   Messages in:  {id, bundle: ArrayBuffer, trustedKey: string|null}
   Messages out: {id, report: {...}}  the same JSON as `fairdeal verify --json`, plus
                 report.browser = {python, signatures, pyodide, seconds, startup}
                 {id, error: "..."}    the runtime failed (never a verdict)  */
"use strict";

var params = new URL(self.location.href).searchParams;
var runtimeUrl = params.get("runtime");   // e.g. /pyodide/0.29.5/
var packagesUrl = params.get("packages"); // e.g. /pyodide/fairdeal.zip?v=<etag>
var ready = null;
var startup = {};  // how long each part of the start took, in ms (the bench reports them)

function boot() {
  if (!ready) {
    ready = (async function () {
      var t0 = performance.now();
      importScripts(runtimeUrl + "pyodide.js");
      /* global loadPyodide */
      var pyodide = await loadPyodide({ indexURL: runtimeUrl, fullStdLib: false });
      var t1 = performance.now();
      var response = await fetch(packagesUrl, { credentials: "same-origin" });
      if (!response.ok) throw new Error("fairdeal's packages: HTTP " + response.status);
      pyodide.unpackArchive(await response.arrayBuffer(), "zip");
      var t2 = performance.now();
      pyodide.runPython([
        "import json, sys, time",
        "from fairdeal.verifier.keys import signature_backend",
        "from fairdeal.verifier.verify import verify_bytes",
        "def _fairdeal_verify(data, trusted_key):",
        "    started = time.perf_counter()",
        "    report = verify_bytes(bytes(data), trusted_key or None).to_json()",
        "    report['browser'] = {'python': sys.version.split()[0],",
        "                         'signatures': signature_backend(),",
        "                         'seconds': round(time.perf_counter() - started, 3)}",
        "    return json.dumps(report)",
      ].join("\n"));
      startup = { runtime_ms: Math.round(t1 - t0), packages_ms: Math.round(t2 - t1),
                  imports_ms: Math.round(performance.now() - t2) };
      return pyodide;
    })();
  }
  return ready;
}

self.onmessage = async function (event) {
  var message = event.data || {};
  try {
    var pyodide = await boot();
    var verify = pyodide.globals.get("_fairdeal_verify");
    var data = pyodide.toPy(new Uint8Array(message.bundle));
    var text;
    try {
      text = verify(data, message.trustedKey || null);
    } finally {
      data.destroy();
      verify.destroy();
    }
    var report = JSON.parse(text);
    report.browser.pyodide = pyodide.version;
    report.browser.startup = startup;
    self.postMessage({ id: message.id, report: report });
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error && error.message || error) });
  }
};
