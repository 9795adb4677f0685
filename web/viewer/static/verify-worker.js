/* fairdeal's verifier in the visitor's browser: a Web Worker that runs Pyodide (served by
   this server, pinned) with fairdeal's own verifier and games packages (one zip, built from the
   server's installed code), so the page stays responsive while a long match is checked.

   Messages in:  {id, bundle: ArrayBuffer, trustedKey: string|null, seatKeys: string|null,
                  receipts: ArrayBuffer|null}   (seatKeys and receipts: what `fairdeal verify
                  --seat-key` and `--receipts` take; they never leave this worker)
                 {id, hash: true}   start the verifier, answer with the archive's hash only
   Messages out: {id, report: {...}}  the same JSON as `fairdeal verify --json`, plus
                 report.browser = {python, signatures, pyodide, seconds, startup,
                                   archive_sha256}
                 {id, archive: {sha256, bytes}}   the answer to {hash: true}
                 {id, inputError: "..."}  a seat key or receipts file is not well-formed
                 {id, error: "..."}    the runtime failed (never a verdict)

   archive_sha256 is computed here, with crypto.subtle, over the very bytes unpacked into
   Python: what a visitor compares with `fairdeal verifier-hash` from the package index. */
"use strict";

var params = new URL(self.location.href).searchParams;
var runtimeUrl = params.get("runtime");   // e.g. /pyodide/0.29.5/
var packagesUrl = params.get("packages"); // e.g. /pyodide/fairdeal.zip?v=<etag>
var bytecodeUrl = params.get("bytecode"); // bytecode_cache.py, installed as sitecustomize
var seedUrl = params.get("seed");         // the standard library's bytecode, when the site has it
var ready = null;
var startup = {};  // how long each part of the start took, in ms (the bench reports them)
var archive = null;  // {sha256, bytes} of the fairdeal.zip this worker loaded

/* The bytecode cache (bytecode_cache.py): the code Python compiled from the standard library
   and fairdeal's archive on an earlier visit, kept in Cache Storage under this runtime's
   folder. Python uses an entry only where the source it finds still has the hash kept with it.
   Cache Storage exists only in a secure context (HTTPS, localhost): elsewhere every visit
   compiles, as before. */
var BYTECODE_CACHE = "fairdeal-bytecode";
var bytecodeKey = new URL(runtimeUrl + "bytecode", self.location.href).href;
self.fairdealBytecode = { saved: false };  // the bench and the tests wait for "saved"

function storedBytecode() {
  if (!self.caches) return Promise.resolve(null);
  return self.caches.open(BYTECODE_CACHE)
    .then(function (cache) { return cache.match(bytecodeKey); })
    .then(function (response) { return response ? response.arrayBuffer() : null; })
    .catch(function () { return null; });  // storage refused (private mode, quota): compile
}

function fetchSeed() {
  return fetch(seedUrl, { credentials: "same-origin" })
    .then(function (response) { return response.ok ? response.arrayBuffer() : null; })
    .catch(function () { return null; });
}

// what this visit compiled, kept for the next one; an older runtime's entry is dropped
async function saveBytecode(pyodide) {
  if (self.fairdealBytecode.saving || !self.caches) return;
  self.fairdealBytecode.saving = true;
  var blob = pyodide.runPython("import sys\n" +
    "cache = getattr(sys.modules.get('sitecustomize'), 'CACHE', None)\n" +
    "cache and cache.blob()");
  try {
    if (blob) {
      var cache = await self.caches.open(BYTECODE_CACHE);
      await cache.put(bytecodeKey, new Response(blob.toJs(),
                                                { headers: { "Content-Type": "application/octet-stream" } }));
      var keys = await cache.keys();
      await Promise.all(keys.filter(function (request) { return request.url !== bytecodeKey; })
        .map(function (request) { return cache.delete(request); }));
    }
    self.fairdealBytecode.saved = true;
  } catch (error) {
    self.fairdealBytecode.error = String(error && error.message || error);
  } finally {
    if (blob) blob.destroy();
  }
}

// how many modules came from the bytecode cache and how many were compiled (null: no cache)
function bytecodeStats(pyodide) {
  var counts = pyodide.runPython("import sys\n" +
    "cache = getattr(sys.modules.get('sitecustomize'), 'CACHE', None)\n" +
    "None if cache is None else f'{cache.cached} {cache.compiled}'");
  if (!counts) return null;
  return { cached: Number(counts.split(" ")[0]), compiled: Number(counts.split(" ")[1]) };
}

function hex(buffer) {
  return Array.prototype.map.call(new Uint8Array(buffer), function (byte) {
    return (byte < 16 ? "0" : "") + byte.toString(16);
  }).join("");
}

// SHA-256 of the archive; crypto.subtle exists only in a secure context (HTTPS or localhost):
// elsewhere Python's hashlib computes it, over the same bytes, once Pyodide runs
async function sha256(pyodide, buffer) {
  if (self.crypto && self.crypto.subtle) return hex(await self.crypto.subtle.digest("SHA-256", buffer));
  var digest = pyodide.runPython("import hashlib\nlambda data: hashlib.sha256(bytes(data)).hexdigest()");
  var data = pyodide.toPy(new Uint8Array(buffer));
  try {
    return digest(data);
  } finally {
    data.destroy();
    digest.destroy();
  }
}

function boot() {
  if (!ready) {
    ready = (async function () {
      var t0 = performance.now();
      // read while Pyodide loads: both are needed just before Python starts
      var stored = storedBytecode();
      // a first visit: the site's seed instead (of which only the standard library is used)
      var seeded = stored.then(function (data) { return data || !seedUrl ? null : fetchSeed(); });
      var customize = bytecodeUrl ? fetch(bytecodeUrl, { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.text() : null; })
        .catch(function () { return null; }) : Promise.resolve(null);
      // fairdeal's zip too: it is unpacked as soon as Python runs
      var packages = fetch(packagesUrl, { credentials: "same-origin" }).then(function (response) {
        if (!response.ok) throw new Error("fairdeal's packages: HTTP " + response.status);
        return response.arrayBuffer();
      });
      packages.catch(function () { /* said when Python is ready for it */ });
      importScripts(runtimeUrl + "pyodide.js");
      /* global loadPyodide */
      var pyodide = await loadPyodide({
        indexURL: runtimeUrl, fullStdLib: false,
        // before Python starts: the cache's finder, and what an earlier visit kept
        fsInit: async function (FS, info) {
          var source = await customize;
          var data = await stored;
          var seed = await seeded;
          if (!source) return;  // no bytecode cache: Python compiles as it always did
          FS.mkdirTree(info.sitePackages);
          FS.writeFile(info.sitePackages + "/sitecustomize.py", source);
          if (data) FS.writeFile("/lib/fairdeal-bytecode", new Uint8Array(data));
          else if (seed) FS.writeFile("/lib/fairdeal-bytecode-seed", new Uint8Array(seed));
        },
      });
      var t1 = performance.now();
      var zip = await packages;
      // hashed before unpacking, and these very bytes are the ones unpacked
      archive = { sha256: await sha256(pyodide, zip), bytes: zip.byteLength };
      pyodide.unpackArchive(zip, "zip");
      var t2 = performance.now();
      pyodide.runPython([
        "import json, sys, time",
        "from fairdeal.verifier.keys import signature_backend",
        "from fairdeal.verifier.inputs import InvalidInput, verify_with_inputs",
        "def _fairdeal_verify(data, trusted_key, seat_keys, receipts):",
        "    started = time.perf_counter()",
        "    try:",
        "        report = verify_with_inputs(bytes(data), trusted_key or None, seat_keys or None,",
        "                                    None if receipts is None else bytes(receipts))",
        "    except InvalidInput as e:",
        "        return json.dumps({'input_error': str(e)})",
        "    report = report.to_json()",
        "    report['browser'] = {'python': sys.version.split()[0],",
        "                         'signatures': signature_backend(),",
        "                         'seconds': round(time.perf_counter() - started, 3)}",
        "    return json.dumps(report)",
      ].join("\n"));
      startup = { runtime_ms: Math.round(t1 - t0), packages_ms: Math.round(t2 - t1),
                  imports_ms: Math.round(performance.now() - t2),
                  since_worker_ms: Math.round(t0), bytecode: bytecodeStats(pyodide) };
      return pyodide;
    })();
  }
  return ready;
}

boot().catch(function () { /* said in answer to the first request */ });  // at once: the page asks soon

self.onmessage = async function (event) {
  var message = event.data || {};
  try {
    var pyodide = await boot();
    if (message.hash) {
      self.postMessage({ id: message.id, archive: archive });
      return;
    }
    var verify = pyodide.globals.get("_fairdeal_verify");
    var data = pyodide.toPy(new Uint8Array(message.bundle));
    // undefined, not null, reaches Python as None
    var receipts = message.receipts ? pyodide.toPy(new Uint8Array(message.receipts)) : undefined;
    var text;
    try {
      text = verify(data, message.trustedKey || undefined, message.seatKeys || undefined, receipts);
    } finally {
      data.destroy();
      if (receipts) receipts.destroy();
      verify.destroy();
    }
    var report = JSON.parse(text);
    if (report.input_error) {
      self.postMessage({ id: message.id, inputError: report.input_error });
      return;
    }
    report.browser.pyodide = pyodide.version;
    report.browser.startup = startup;
    report.browser.archive_sha256 = archive.sha256;
    self.postMessage({ id: message.id, report: report });
    // once the visitor has the verdict; a failure to keep it costs the next visit time only
    saveBytecode(pyodide).catch(function () {});
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error && error.message || error) });
  }
};
