// The service worker, served at /sw.js (scope: the whole site). With the offline pack saved (offline-core.js), a
// page the network cannot answer (offline, no answer within SLOW_MS, or a gateway's 502-504) is the saved shell, which the page script
// (offline.js) fills from the pack. Nothing is saved, or another origin, or not a GET: the network, as without it.
/* global KBOffline */
importScripts("{{ core }}");

var SLOW_MS = 8000;  // a hall's Wi-Fi that takes the request and never answers

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function shell() {
  return caches.open(KBOffline.CACHE).then(function (c) { return c.match(KBOffline.SHELL, { ignoreVary: true }); });
}

function navigate(request) {
  return new Promise(function (resolve, reject) {
    var done = false;
    function fallBack(error) {
      return shell().then(function (page) {
        if (done) return;
        if (page) { done = true; resolve(page); } else if (error) { done = true; reject(error); }
      });
    }
    var timer = setTimeout(fallBack, SLOW_MS);
    fetch(request).then(function (response) {
      clearTimeout(timer);
      if (done) return;
      // a gateway with no server behind it (502-504) is no answer either: the saved page, if there is one
      if (response.status >= 502 && response.status <= 504) {
        shell().then(function (page) { if (!done) { done = true; resolve(page || response); } });
        return;
      }
      done = true;
      resolve(response);
    }, function (error) {
      clearTimeout(timer);
      fallBack(error);
    });
  });
}

// The two API answers the pages ask for as a reader types and points (suggestions, reference previews): from the
// network, else from the saved pack; nothing saved, the network's failure as before.
function fromPack(request, answer) {
  return fetch(request).catch(function (error) {
    return KBOffline.load().then(function (kb) {
      var body = answer(kb);
      if (body === null) return new Response('{"error": {"code": "not_found", "message": "not in the saved rules"}}',
                                             { status: 404, headers: { "Content-Type": "application/json" } });
      return new Response(JSON.stringify(body), { headers: { "Content-Type": "application/json" } });
    }, function () { throw error; });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (url.pathname === "/api/autocomplete") {
    event.respondWith(fromPack(request, function (kb) { return kb.complete(url.searchParams.get("q") || ""); }));
  } else if (url.pathname.indexOf("/api/records/") === 0) {
    event.respondWith(fromPack(request, function (kb) {
      return kb.recordJson(decodeURIComponent(url.pathname.slice("/api/records/".length)).toLowerCase());
    }));
  } else if (request.mode === "navigate") {
    event.respondWith(navigate(request));
  } else if (url.pathname.indexOf("/static/") === 0) {
    // the style sheet and scripts under their versioned URLs, as saved with the pack; the network otherwise
    event.respondWith(caches.open(KBOffline.CACHE).then(function (c) { return c.match(request, { ignoreVary: true }); })
      .then(function (hit) { return hit || fetch(request); }));
  }
});
