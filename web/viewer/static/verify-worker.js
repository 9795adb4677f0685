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
var snapshot = {};  // {heap, of}: the heap this visit made, until it is kept
// the Python each visit runs before verifying: fairdeal's verifier imported, one entry point
var SETUP = [
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
].join("\n");

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

// Put ``response`` in the cache named ``name`` under ``key``, and delete every other entry
// there (what an older runtime or archive left).
async function keepOnly(name, key, response) {
  var cache = await self.caches.open(name);
  await cache.put(key, response);
  var keys = await cache.keys();
  await Promise.all(keys.filter(function (request) { return request.url !== key; })
    .map(function (request) { return cache.delete(request); }));
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
      await keepOnly(BYTECODE_CACHE, bytecodeKey, new Response(
        blob.toJs(), { headers: { "Content-Type": "application/octet-stream" } }));
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

/* The memory snapshot (Pyodide's makeMemorySnapshot / _loadSnapshot): a first visit keeps the
   interpreter's heap as it is once fairdeal's verifier is imported and before anything is
   verified; a returning visit restores that heap instead of starting Python and importing
   again (most of what is left of Pyodide's start once the bytecode cache has done its part).
   It is used only where it was made from the very inputs this visit has: this runtime (Pyodide
   checks its own build id too), this fairdeal.zip (its SHA-256, computed here over the bytes
   this visit unpacks), this bytecode_cache.py and this worker's Python; anything else, or any
   failure to restore, and Python starts as it always did. Like the bytecode cache it lives in
   Cache Storage (secure contexts only), which only this origin's scripts can write. */
var SNAPSHOT_CACHE = "fairdeal-snapshot";
var snapshotKey = new URL(runtimeUrl + "snapshot", self.location.href).href;
var SNAPSHOT_OF = "X-Fairdeal-Snapshot-Of";
var SNAPSHOT_SHA256 = "X-Fairdeal-Snapshot-SHA256";  // the heap's own hash: a damaged one is not used
// what became of the snapshot: restore is "restored", "none", "stale" (made from other inputs)
// or "failed: why" (then dropped); made when this visit made one; the tests wait for "saved"
self.fairdealSnapshot = { restore: "none", made: false, saved: false };

function snapshotsPossible() {
  return !!(self.caches && self.crypto && self.crypto.subtle);
}

function storedSnapshot() {
  if (!snapshotsPossible()) return Promise.resolve(null);
  return self.caches.open(SNAPSHOT_CACHE)
    .then(function (cache) { return cache.match(snapshotKey); })
    .catch(function () { return null; });
}

// what a snapshot was made from: the archive's hash, the cache's source and the worker's Python
async function snapshotOf(archiveSha256, customize) {
  var text = [runtimeUrl, archiveSha256, customize || "", SETUP].join("\n\u0000\n");
  return subtleSha256(new TextEncoder().encode(text));
}

async function saveSnapshot(snapshot) {
  if (!snapshot.heap || snapshot.saving) return;
  snapshot.saving = true;
  var headers = { "Content-Type": "application/octet-stream" };
  headers[SNAPSHOT_OF] = snapshot.of;
  try {
    headers[SNAPSHOT_SHA256] = await subtleSha256(snapshot.heap);
    // an older runtime's snapshot goes
    await keepOnly(SNAPSHOT_CACHE, snapshotKey, new Response(snapshot.heap, { headers: headers }));
    self.fairdealSnapshot.saved = true;
  } catch (error) {
    self.fairdealSnapshot.error = String(error && error.message || error);
  } finally {
    snapshot.heap = null;
  }
}

function dropSnapshot() {
  return self.caches.open(SNAPSHOT_CACHE)
    .then(function (cache) { return cache.delete(snapshotKey); })
    .catch(function () {});
}

function hex(buffer) {
  return Array.prototype.map.call(new Uint8Array(buffer), function (byte) {
    return (byte < 16 ? "0" : "") + byte.toString(16);
  }).join("");
}

// SHA-256 in hex by crypto.subtle (a secure context's; sha256 below falls back to Python)
async function subtleSha256(buffer) {
  return hex(await self.crypto.subtle.digest("SHA-256", buffer));
}

// SHA-256 of the archive; crypto.subtle exists only in a secure context (HTTPS or localhost):
// elsewhere Python's hashlib computes it, over the same bytes, once Pyodide runs
async function sha256(pyodide, buffer) {
  if (self.crypto && self.crypto.subtle) return subtleSha256(buffer);
  var digest = pyodide.runPython("import hashlib\nlambda data: hashlib.sha256(bytes(data)).hexdigest()");
  var data = pyodide.toPy(new Uint8Array(buffer));
  try {
    return digest(data);
  } finally {
    data.destroy();
    digest.destroy();
  }
}

// an earlier visit's heap, read and hashed at once (the hashing runs off this thread while
// the runtime's scripts load): {heap, intact, of} or null when there is none
function readSnapshot(kept) {
  return kept.then(async function (entry) {
    if (!entry) return null;
    var heap = new Uint8Array(await entry.arrayBuffer());
    var digest = await subtleSha256(heap);
    return { heap: heap, intact: entry.headers.get(SNAPSHOT_SHA256) === digest,
             of: entry.headers.get(SNAPSHOT_OF) };
  });
}

// the heap an earlier visit kept, restored, if it was made from this visit's very inputs; null
// when there is none, it was made from others, or it does not restore (then it is dropped)
async function restoreSnapshot(read, packages, customize, options) {
  var kept = await read;
  if (!kept) return null;
  var zip = await packages;
  var digest = await subtleSha256(zip);
  if (kept.of !== await snapshotOf(digest, await customize)) {
    self.fairdealSnapshot.restore = "stale";  // this visit's replaces it
    return null;
  }
  try {
    if (!kept.intact) throw new Error("damaged: its bytes are not the ones kept");
    var pyodide = await loadPyodide(Object.assign({}, options, { _loadSnapshot: kept.heap }));
    // the bytecode cache's finder came back with the heap; it takes what the last visit kept
    // (the modules imported after the snapshot, such as the match's game) and counts anew
    var whole = pyodide.runPython([
      "import sys",
      "cache = getattr(sys.modules.get('sitecustomize'), 'CACHE', None)",
      "if cache is not None:",
      "    cache.entries.update(sys.modules['sitecustomize']._read(",
      "        sys.modules['sitecustomize'].STORED))",
      "    cache.cached = cache.compiled = 0",
      "    cache.compiled_here = []",
      "'_fairdeal_verify' in globals() and 'fairdeal.verifier.inputs' in sys.modules",
    ].join("\n"));
    if (whole !== true) throw new Error("fairdeal's verifier is not in it");
    // Pyodide's config keeps what it was given: the heap's 24 MB copy, no longer needed
    if (pyodide._api && pyodide._api.config) pyodide._api.config._loadSnapshot = null;
    self.fairdealSnapshot.restore = "restored";
    return { pyodide: pyodide, zip: zip, sha256: digest };
  } catch (error) {
    self.fairdealSnapshot.restore = "failed: " + String(error && error.message || error);
    await dropSnapshot();
    return null;
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
      var read = readSnapshot(storedSnapshot());
      read.catch(function () { /* none then */ });
      importScripts(runtimeUrl + "pyodide.js");
      var options = {
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
      };
      var restored = await restoreSnapshot(read, packages, customize, options).catch(
        function () { return null; });
      /* global loadPyodide */
      var pyodide = restored ? restored.pyodide
        : await loadPyodide(Object.assign({ _makeSnapshot: snapshotsPossible() }, options));
      var t1 = performance.now();
      var zip = restored ? restored.zip : await packages;
      // hashed before unpacking, and these very bytes are the ones unpacked
      archive = { sha256: restored ? restored.sha256 : await sha256(pyodide, zip),
                  bytes: zip.byteLength };
      pyodide.unpackArchive(zip, "zip");  // a restored heap has the modules, not their files
      var t2 = performance.now();
      if (!restored) pyodide.runPython(SETUP);
      var t3 = performance.now();
      if (!restored && snapshotsPossible()) {
        try {  // now, before anything is verified; kept once the visitor has the verdict
          snapshot = { heap: pyodide.makeMemorySnapshot(),
                       of: await snapshotOf(archive.sha256, await customize) };
          self.fairdealSnapshot.made = true;
        } catch (error) {
          self.fairdealSnapshot.error = "not made: " + String(error && error.message || error);
        }
      }
      startup = { runtime_ms: Math.round(t1 - t0), packages_ms: Math.round(t2 - t1),
                  imports_ms: Math.round(t3 - t2),
                  snapshot_ms: Math.round(performance.now() - t3),
                  snapshot_bytes: snapshot.heap ? snapshot.heap.byteLength : null,
                  snapshot: { restore: self.fairdealSnapshot.restore, made: self.fairdealSnapshot.made },
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
    if (snapshot.heap) saveSnapshot(snapshot).catch(function () {});
    else self.fairdealSnapshot.saved = true;  // restored, or none to keep
  } catch (error) {
    self.postMessage({ id: message.id, error: String(error && error.message || error) });
  }
};
