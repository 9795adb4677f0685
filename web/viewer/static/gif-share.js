// The share box's GIF: Download draws it on the server, which can take seconds for a long
// match, so the box shows how far the drawing is (the 202 answers' X-Frames-Drawn and
// X-Frames, asked for at once with "Prefer: respond-async") and saves the GIF when it is there.
// Without JavaScript the link is a plain download that waits (or gets the 202's sentence).
(function () {
  "use strict";
  var link = document.getElementById("gif-download");
  var box = document.getElementById("gif-progress");
  if (!link || !box || !window.fetch || !window.URL || !URL.createObjectURL) return;
  var bar = document.getElementById("gif-progress-bar");
  var text = document.getElementById("gif-progress-text");
  var busy = false;

  function say(words, drawn, frames) {
    box.hidden = false;
    text.textContent = words;
    if (frames > 0) { bar.max = frames; bar.value = drawn; bar.hidden = false; }
    else { bar.removeAttribute("value"); }  // indeterminate: nothing to count yet
  }

  function finish() { busy = false; link.removeAttribute("aria-disabled"); }

  function save(blob) {
    var url = URL.createObjectURL(blob);
    var a = document.createElement("a");
    a.href = url;
    a.download = link.getAttribute("download") || "replay.gif";
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(function () { URL.revokeObjectURL(url); }, 60000);
    say("GIF ready (" + (blob.size / 1048576).toFixed(1) + " MB): saved", 1, 1);
    finish();
  }

  function fail(words) {
    say(words, 0, 0);
    bar.hidden = true;
    finish();
  }

  function ask() {
    fetch(link.href, { headers: { Prefer: "respond-async" } }).then(function (response) {
      if (response.status === 202) {
        var drawn = parseInt(response.headers.get("X-Frames-Drawn") || "", 10);
        var frames = parseInt(response.headers.get("X-Frames") || "", 10);
        var wait = parseInt(response.headers.get("Retry-After") || "3", 10) * 1000;
        if (frames > 0) {
          say(drawn < frames ? "Drawing the GIF: " + drawn + " of " + frames + " frames"
                             : "All " + frames + " frames drawn: putting the GIF together",
              drawn, frames);
          wait = 700;
        } else {
          say("Another GIF is being drawn on the server: this one starts after it", 0, 0);
        }
        setTimeout(ask, wait);
        return null;
      }
      if (!response.ok) {
        return response.text().then(function (words) {
          fail("The GIF could not be drawn: " + (words.trim() || response.status));
        });
      }
      return response.blob().then(save);
    }).catch(function () {
      fail("The GIF could not be fetched: check the connection and try again");
    });
  }

  link.addEventListener("click", function (event) {
    event.preventDefault();
    if (busy) return;
    busy = true;
    link.setAttribute("aria-disabled", "true");
    say("Asking the server for the GIF", 0, 0);
    ask();
  });
})();
