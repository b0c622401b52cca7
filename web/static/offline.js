// The site as an installable web app that answers without a network (docs/offline.md).
// On every page: registers the service worker (/sw.js) and runs the footer's "available offline" control (save,
// what is saved and how large, a newer build's pack fetched in the background). On the saved shell page, which
// the worker answers when the network cannot: the page the address asks for, made from the saved pack with the
// site's own layout (record.html, search.html), marked "offline". Without service workers nothing here runs.
/* global KBOffline */
(function () {
  "use strict";
  if (!("serviceWorker" in navigator) || !window.caches || !window.KBOffline) return;

  function el(tag, attrs) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (attrs[k] !== null && attrs[k] !== undefined) node.setAttribute(k, attrs[k]);
    });
    for (var i = 2; i < arguments.length; i++) {
      var c = arguments[i];
      if (c === null || c === undefined || c === false) continue;
      (Array.isArray(c) ? c : [c]).forEach(function (x) {
        if (x !== null && x !== undefined) node.appendChild(typeof x === "string" ? document.createTextNode(x) : x);
      });
    }
    return node;
  }

  function size(bytes) {
    return bytes >= 1e6 ? (bytes / 1e6).toFixed(1) + " MB" : Math.max(1, Math.round(bytes / 1e3)) + " KB";
  }
  function day(iso) { return String(iso || "").slice(0, 10); }
  function said(meta) {
    return meta.label + " saved on " + day(meta.saved_at) + " (" + size(meta.bytes) + ", " +
      size(meta.gzip_bytes) + " to download)";
  }
  var shellPage = document.getElementById("offline-page");

  // -- the control ---------------------------------------------------------------------------------------------
  function control() {
    var box = document.querySelector("[data-offline-control]");
    if (!box) return;
    var status = box.querySelector("[data-offline-status]"), save = box.querySelector("[data-offline-save]");
    var forget = box.querySelector("[data-offline-forget]");
    box.hidden = false;
    function show(meta, state) {
      box.setAttribute("data-state", state || (meta ? "saved" : "none"));
      box.setAttribute("data-build", meta ? meta.build : "");
      status.textContent = meta ? "Available offline: " + said(meta) + "." :
        "Save the rules on this device to look them up without a network.";
      save.textContent = meta ? "Save again" : "Save for offline";
      forget.hidden = !meta;
    }
    save.addEventListener("click", function () {
      save.disabled = true;
      status.textContent = "Saving…";
      // the worker is registered when a reader saves the rules, not before: a reader who never does is served
      // as without one
      navigator.serviceWorker.register("/sw.js", { scope: "/" }).then(function () {
        return navigator.serviceWorker.ready;
      }).then(KBOffline.save).then(function (meta) { show(meta); }, function (err) {
        box.setAttribute("data-state", "failed");
        status.textContent = "Could not save: " + err.message;
      }).then(function () { save.disabled = false; });
    });
    forget.addEventListener("click", function () {
      KBOffline.forget().then(function () { return navigator.serviceWorker.getRegistration("/"); })
        .then(function (reg) { return reg && reg.unregister(); }).then(function () { show(null); });
    });
    KBOffline.saved().then(function (meta) {
      show(meta);
      if (meta && !shellPage && navigator.onLine !== false) {
        // a newer build on the server: its pack replaces this one, in the background
        KBOffline.refresh().then(function (now) { if (now) show(now); }, function () {});
      }
    });
  }

  // -- pages made from the pack ----------------------------------------------------------------------------------
  function url(id) { return "/" + id; }

  // the documents' light markup, as web/render.py renders it: mana symbols ({2}{R}) and _italics_
  var MANA = /((?:\{[0-9A-Za-z\/½∞()]{1,6}\})+)/, EM = /(?<![\w])_(?=[^\s_])(.+?)(?<=[^\s_])_(?![\w])/;
  function inline(into, text) {
    text.split(MANA).forEach(function (part, i) {
      if (i % 2) {
        var run = el("span", { class: "mana" });
        (part.match(/\{[^}]*\}/g) || []).forEach(function (sym) {
          var s = sym.slice(1, -1);
          run.appendChild(el("abbr", { class: "ms ms-" + s.toLowerCase().replace(/[\/()]/g, ""), title: sym },
            el("span", { class: "brace" }, "{"), s, el("span", { class: "brace" }, "}")));
        });
        into.appendChild(run);
        return;
      }
      part.split(EM).forEach(function (bit, j) {
        if (bit) into.appendChild(j % 2 ? el("em", {}, bit) : document.createTextNode(bit));
      });
    });
    return into;
  }

  // a record's text as the site renders it: paragraphs, its resolved references linked
  function textNodes(kb, text, links) {
    var out = [], p = el("p"), at = 0;
    out.push(p);
    function add(s) {
      var parts = s.split(/\n\s*\n/);
      parts.forEach(function (part, i) {
        if (i > 0) { p = el("p"); out.push(p); }
        if (part) inline(p, part);
      });
    }
    var sorted = (links || []).filter(function (l) { return kb.get(l[2]); }).sort(function (a, b) { return a[0] - b[0]; });
    sorted.forEach(function (l, i) {
      if (l[0] < at) return;
      var written = text.slice(l[0], l[1]), record = kb.get(l[2]);
      var range = sorted[i + 1] && sorted[i + 1][0] === l[0] && sorted[i + 1][1] === l[1];
      add(text.slice(at, l[0]));
      // a range ("601.2f–h") links its /r/ page, as the server's pages do; one rule its record
      p.appendChild(range ? el("a", { class: "ref range", href: "/r/" + encodeURIComponent(written) + "?doc=" + record.doc }, written)
        : el("a", { class: "ref", href: url(l[2]), "data-id": l[2] }, written));
      at = l[1];
    });
    add(text.slice(at));
    return out.filter(function (x) { return x.childNodes.length; });
  }

  function offlineMark(kb, extra) {
    return el("p", { class: "note offline-mark", "data-offline-build": kb.build },
      "Offline: from the " + kb.meta.label + " saved on " + day(kb.meta.saved_at) + "." + (extra ? " " + extra : ""));
  }

  function heading(kb, r) {
    var label = kb.label(r);
    if (r.n && label.indexOf(r.n) === 0) return el("h1", {}, el("span", { class: "number" }, r.n), label.slice(r.n.length));
    return el("h1", {}, label);
  }

  function trail(kb, r) {
    var chain = [];
    for (var p = r.p && kb.get(r.p); p; p = p.p && kb.get(p.p)) chain.unshift(p);
    var nav = el("nav", { class: "breadcrumbs" }, el("a", { href: url(r.doc) }, kb.docTitle(r.doc)));
    chain.forEach(function (c) { nav.appendChild(document.createTextNode(" › ")); nav.appendChild(el("a", { href: url(c.i) }, kb.label(c))); });
    return nav;
  }

  function descendants(kb, r, depth, out) {
    (kb.children[r.i] || []).forEach(function (c) {
      out.push([c, depth]);
      if (depth < 4) descendants(kb, c, depth + 1, out);
    });
    return out;
  }

  function recordPage(kb, r, note) {
    var doc = kb.docs[r.doc] || { title: kb.docTitle(r.doc) };
    document.title = kb.label(r) + " — " + doc.title + " (offline)";
    var article = el("article", { class: "record kind-" + r.k, "data-id": r.i }, heading(kb, r),
      el("p", { class: "docmeta" }, el("a", { href: url(r.doc) }, doc.title),
        doc.version ? [" · ", el("span", { class: "version" }, doc.version)] : null,
        /^\d/.test(doc.effective || "") && doc.effective !== doc.version ? [" · effective ", el("time", {}, doc.effective)] : null),
      offlineMark(kb), note ? el("p", { class: "note renamed" }, note) : null,
      r.ro ? el("p", { class: "role" }, "Identity — " + r.ro) : null);
    if (r.k === "card" && (r.mc || r.tl)) {
      article.appendChild(el("div", { class: "card-face" },
        el("p", { class: "card-head" }, el("span", { class: "card-name" }, r.t || ""), r.mc ? inline(el("span"), r.mc) : null),
        r.tl ? el("p", { class: "type-line" }, r.tl) : null,
        (r.rt || r.x) ? el("div", { class: "rules-text" }, r.rt ? textNodes(kb, r.rt, []) : textNodes(kb, r.x, r.r)) : null,
        r.pt ? el("p", { class: "pt" }, r.pt) : null));
    } else if (r.x) {
      article.appendChild(el("div", { class: "text" }, textNodes(kb, r.x, r.r)));
    }
    if (r.g) article.appendChild(el("p", { class: "group" }, r.g));
    (r.ex || []).forEach(function (x) { article.appendChild(el("div", { class: "example" }, textNodes(kb, x, []))); });
    if (r.at) article.appendChild(el("p", { class: "attribution" }, "From: " + r.at));
    (r.cm || []).forEach(function (x) { article.appendChild(el("div", { class: "commentary" }, textNodes(kb, x, []))); });
    var below = descendants(kb, r, 1, []);
    if (below.length) {
      var list = el("ul", { class: "children" });
      below.forEach(function (pair) {
        var c = pair[0];
        list.appendChild(el("li", { class: "depth-" + pair[1] },
          el("a", { class: "child-label", href: url(c.i) }, [c.n, c.t].filter(Boolean).join(" ") || "#" + c.i.split("/").pop()),
          c.x && c.x !== c.t ? el("div", { class: "child-text" }, textNodes(kb, c.x, c.r)) : null));
      });
      var kinds = r.k === "card" || r.k === "note" ? "Rulings" : "Contents";
      article.appendChild(el("section", { class: "children" }, el("h2", {}, kinds), list));
    }
    var prev = kb.order[r.pos - 1], next = kb.order[r.pos + 1];
    prev = prev && prev.doc === r.doc ? prev : null;
    next = next && next.doc === r.doc ? next : null;
    return [trail(kb, r), article, el("nav", { class: "prevnext" },
      prev ? el("a", { rel: "prev", href: url(prev.i) }, "← " + kb.label(prev)) : null,
      next ? el("a", { rel: "next", href: url(next.i) }, kb.label(next) + " →") : null),
      el("aside", { class: "tools" }, el("p", {}, "Permalink: ", el("a", { class: "permalink", href: url(r.i) }, url(r.i))))];
  }

  // a few words of the record's text (its first sub-rule's when it has none: 702.15 Lifelink) around the first
  // word asked, the words asked marked
  function snippet(kb, r, query) {
    var own = r.x || r.rt || ((kb.children[r.i] || [])[0] || {}).x || "";
    var text = own.replace(/\s+/g, " "), asked = KBOffline.fold(query).match(/[a-z0-9]{3,}/g) || [];
    var at = asked.length ? KBOffline.fold(text).indexOf(asked[0].slice(0, 5)) : -1;
    var start = Math.max(0, at - 60), shown = (start ? "…" : "") + text.slice(start, start + 220) +
      (text.length > start + 220 ? "…" : "");
    var out = el("p", { class: "snippet" });
    if (!asked.length) return inline(out, shown);
    var stems = asked.map(function (w) { return w.slice(0, Math.max(3, w.length - 2)); });
    var mark = new RegExp("\\b(" + stems.join("|") + ")[a-z]*", "gi"), last = 0, m;
    while ((m = mark.exec(shown))) {
      inline(out, shown.slice(last, m.index));
      out.appendChild(el("mark", {}, m[0]));
      last = m.index + m[0].length;
    }
    return inline(out, shown.slice(last));
  }

  function hitList(kb, records, query) {
    return el("ol", { class: "hits" }, records.map(function (r) {
      return el("li", { class: "hit" }, el("a", { class: "hit-title", href: url(r.i) }, kb.label(r)), " ",
        el("span", { class: "meta" }, kb.docTitle(r.doc) + " · " + r.k), snippet(kb, r, query));
    }));
  }

  function searchPage(kb, query, results, note) {
    document.title = query + " — search (offline)";
    return [el("h1", {}, "Search: " + query), offlineMark(kb), note ? el("p", { class: "note" }, note) : null,
      el("div", { class: "layout" }, el("section", { class: "results" },
        el("p", { class: "total" }, results.total + " result" + (results.total === 1 ? "" : "s")),
        hitList(kb, results.hits, query)))];
  }

  function choicePage(kb, ref, matches, note) {
    document.title = ref + " — which document? (offline)";
    return [el("h1", {}, ref + " — which document?"), offlineMark(kb), note ? el("p", { class: "note" }, note) : null,
      el("ul", { class: "matches" }, matches.map(function (r) {
        return el("li", {}, el("a", { href: url(r.i) }, kb.label(r)), " ", el("span", { class: "meta" }, kb.docTitle(r.doc)));
      }))];
  }

  function notFound(kb, message, query) {
    document.title = "404 — " + message + " (offline)";
    var near = query ? kb.search(query, 5).hits : [];
    return [el("h1", {}, "404"), offlineMark(kb), el("p", { class: "note" }, message),
      near.length ? [el("h2", {}, "Perhaps one of these"), hitList(kb, near, query)] : null];
  }

  var SERVER_ONLY = "needs the server: history, diffs, rules as of a date, linkify, the API and Discord are not " +
    "saved for offline use.";
  function needsServer(kb, what) {
    document.title = "Needs the server (offline)";
    return [el("h1", {}, "Offline"), el("p", { class: "note offline-mark needs-server", "data-offline-build": kb.build },
      what + " " + SERVER_ONLY)];
  }

  function listPage(kb, title, records) {
    document.title = title + " (offline)";
    return [el("h1", {}, title), offlineMark(kb), el("ul", { class: "children" }, records.map(function (r) {
      return el("li", {}, el("a", { class: "child-label", href: url(r.i) }, kb.label(r)));
    }))];
  }

  function home(kb) {
    document.title = "Rules knowledge base (offline)";
    return [el("h1", {}, "Rules knowledge base"), offlineMark(kb, "Look up a rule, a card or a few words above."),
      el("ul", { class: "documents" }, kb.documents.map(function (d) {
        return el("li", {}, el("a", { href: url(d.slug) }, d.title), d.version ? " " : null,
          d.version ? el("span", { class: "meta" }, d.version) : null);
      }))];
  }

  var TIME = /@|\bas\s+of\b|\bhistory\b|\b(?:19|20)\d\d\b/i;
  function answerQuery(kb, q, typed) {
    if (TIME.test(q) && kb.parseRef(q.replace(TIME, " ").replace(/\S*\d{4}-\d\d-\d\d\S*/, "")) !== null) {
      return needsServer(kb, "\u2018" + q + "\u2019");
    }
    var found = kb.lookup(q);
    if (found.redirect) {
      history.replaceState(null, "", url(found.redirect.i));
      return recordPage(kb, found.redirect, found.note);
    }
    if (found.choices) return choicePage(kb, q, found.choices, found.note);
    if (typed === "ref" && !found.results.total) return notFound(kb, found.note || "no rule " + q, q);
    return searchPage(kb, q, found.results, found.note);
  }

  function page(kb, where) {
    var path;
    try { path = decodeURIComponent(where.pathname); } catch (err) { path = where.pathname; }
    var params = new URLSearchParams(where.search), m;
    if (path === "/") return home(kb);
    if (path === "/search") {
      var q = (params.get("q") || "").trim();
      return q ? answerQuery(kb, q) : home(kb);
    }
    if (/\/(?:history|releases)$|^\/(?:diff|api|linkify|discord|opensearch)|@/.test(path)) return needsServer(kb, path);
    if ((m = path.match(/^\/r\/(.+)$/))) {
      var slug = m[1].toLowerCase(), section = kb.sections.filter(function (s) {
        return slug === s.key.replace(/ /g, "-") || slug.indexOf(s.key.replace(/ /g, "-") + "-") === 0;
      })[0];
      if (section) {
        var rest = slug.slice(section.key.length + 1), r = rest ? kb.get(section.record.i + "/" + rest.replace(/-/g, "/")) : section.record;
        if (r) { history.replaceState(null, "", url(r.i)); return recordPage(kb, r); }
      }
      return answerQuery(kb, m[1], "ref");
    }
    if ((m = path.match(/^\/c\/(.+?)(?:\/(\d+))?$/))) {
      var card = kb.findCard(m[1].replace(/-/g, " "));
      if (!card.card) {
        return notFound(kb, card.candidates.length ? "\u2018" + m[1] + "\u2019 fits several cards: " +
          card.candidates.map(function (c) { return c.t; }).join(", ") + "; add a word" : "no card named \u2018" + m[1] + "\u2019", m[1]);
      }
      var shown = m[2] ? kb.get(card.card.i + "/" + m[2]) : card.card;
      if (!shown) return notFound(kb, card.card.t + " has no ruling " + m[2], card.card.t);
      history.replaceState(null, "", url(shown.i));
      return recordPage(kb, shown, card.note);
    }
    if (path === "/keywords") return listPage(kb, "Keywords", kb.order.filter(function (r) { return r.k === "keyword"; }));
    if ((m = path.match(/^\/([a-z]+)\/glossary$/)) && kb.docs[m[1]]) {
      return listPage(kb, "Glossary — " + kb.docTitle(m[1]), kb.order.filter(function (r) { return r.doc === m[1] && r.k === "glossary"; })
        .sort(function (a, b) { return (a.t || "").localeCompare(b.t || ""); }));
    }
    var id = path.replace(/^\/+|\/+$/g, "").toLowerCase();
    if (kb.docs[id]) return listPage(kb, kb.docTitle(id), kb.order.filter(function (r) { return r.doc === id && !r.p; }));
    var record = kb.get(id);
    if (record) return recordPage(kb, record);
    var typed = path.replace(/^\/+|\/+$/g, "");
    var ref = kb.resolve(typed);
    if (ref && ref.matches.length === 1) { history.replaceState(null, "", url(ref.matches[0].i)); return recordPage(kb, ref.matches[0], ref.note); }
    return notFound(kb, "no record " + typed + " in the saved rules", typed.split("/").pop().replace(/-/g, " "));
  }

  function fill() {
    var main = document.querySelector("main");
    var started = performance.now();
    KBOffline.load().then(function (kb) {
      var nodes = page(kb, window.location);
      main.textContent = "";
      [].concat.apply([], nodes.map(function (x) { return Array.isArray(x) ? x : [x]; })).forEach(function (x) {
        if (x) main.appendChild(x);
      });
      var box = document.querySelector("header.top input[type=search]");
      var q = new URLSearchParams(window.location.search).get("q");
      if (box && q && window.location.pathname === "/search") box.value = q;
      // when the answer was on the screen, in milliseconds since the navigation began (what a test reads)
      document.documentElement.setAttribute("data-offline-answered", String(Math.round(performance.now())));
      document.documentElement.setAttribute("data-offline-work", String(Math.round(performance.now() - started)));
    }).catch(function (err) {
      main.textContent = "";
      main.appendChild(el("p", { class: "note offline-mark" }, "Offline, and " + err.message + "."));
      document.documentElement.setAttribute("data-offline-answered", "failed");
    });
  }

  if (shellPage) fill();  // the script is deferred: the document is parsed
  control();  // deferred: the footer is parsed
})();
