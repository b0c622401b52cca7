// The service worker, served at /sw.js (scope: the whole site). With the offline pack saved (offline-core.js), a
// page the network cannot answer (offline, or no answer within SLOW_MS) is the saved shell, which the page script
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
      if (!done) { done = true; resolve(response); }
    }, function (error) {
      clearTimeout(timer);
      fallBack(error);
    });
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request, url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin) return;
  if (request.mode === "navigate") {
    event.respondWith(navigate(request));
  } else if (url.pathname.indexOf("/static/") === 0) {
    // the style sheet and scripts under their versioned URLs, as saved with the pack; the network otherwise
    event.respondWith(caches.open(KBOffline.CACHE).then(function (c) { return c.match(request, { ignoreVary: true }); })
      .then(function (hit) { return hit || fetch(request); }));
  }
});
