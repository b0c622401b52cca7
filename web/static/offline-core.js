// The offline pack, without a page: saving and refreshing it (Cache Storage), and answering from it.
// Loaded by the pages (offline.js) and by the service worker (sw.js, importScripts). See docs/offline.md.
// What it answers: a record by its id, a rule reference in the forms the search box takes (907.4b, CR 702.19b,
// rule 704.5j, treachery 907.5a, 907.5a treachery, tr 702.187d, 702,19b, 907 8a, Token Cards j), a card name
// (exact, by the start of its words, or within two typos), and words over titles and text.
(function (root) {
  "use strict";

  var CACHE = "kb-offline";
  var META = "/offline/saved";  // what is saved: {build, label, url, bytes, gzip_bytes, saved_at}
  var SHELL = "/offline/shell";
  var FORMAT = 1;

  function cache() { return root.caches.open(CACHE); }

  function saved() {
    if (!root.caches) return Promise.resolve(null);
    return cache().then(function (c) { return c.match(META, { ignoreVary: true }); })
      .then(function (r) { return r ? r.json() : null; }).catch(function () { return null; });
  }

  function fetchOk(url, options) {
    return fetch(url, options).then(function (r) {
      if (!r.ok) throw new Error(url + " answered " + r.status);
      return r;
    });
  }

  // The pointer, the pack, the shell page and the style sheet and scripts the shell links; then the note of what
  // is saved; then the previous pack goes. A failure half-way keeps what was saved before.
  function save() {
    var pointer, c;
    return fetchOk("/offline/current", { cache: "no-store" }).then(function (r) { return r.json(); })
      .then(function (p) {
        if (p.format !== FORMAT) throw new Error("pack format " + p.format + ", this page reads " + FORMAT);
        pointer = p;
        return cache();
      })
      .then(function (opened) {
        c = opened;
        return Promise.all([fetchOk(pointer.url), fetchOk(SHELL, { cache: "no-store" })]);
      })
      .then(function (got) {
        var shell = got[1];
        return shell.clone().text().then(function (html) {
          var assets = [], re = /(?:href|src)="(\/static\/[^"]+)"/g, m;
          while ((m = re.exec(html))) assets.push(m[1].replace(/&amp;/g, "&"));
          return Promise.all(assets.map(function (a) { return fetchOk(a).then(function (r) { return c.put(a, r); }); }))
            .then(function () { return Promise.all([c.put(pointer.url, got[0]), c.put(SHELL, shell)]); });
        });
      })
      .then(function () {
        var meta = { format: pointer.format, build: pointer.build, label: pointer.label, url: pointer.url, bytes: pointer.bytes,
                     gzip_bytes: pointer.gzip_bytes, saved_at: new Date().toISOString() };
        return c.put(META, new Response(JSON.stringify(meta), { headers: { "Content-Type": "application/json" } }))
          .then(function () { return c.keys(); })
          .then(function (keys) {
            return Promise.all(keys.filter(function (k) {
              var path = new URL(k.url).pathname;
              return /^\/offline\/.+\.json$/.test(path) && path !== pointer.url;
            }).map(function (k) { return c.delete(k); }));
          })
          .then(function () { loaded = null; return meta; });
      });
  }

  // A newer build on the server replaces the saved pack, in the background; offline or unchanged, nothing happens.
  function refresh() {
    return saved().then(function (meta) {
      if (!meta) return null;
      return fetch("/offline/current", { cache: "no-store" }).then(function (r) { return r.ok ? r.json() : null; })
        .then(function (p) { return p && (p.build !== meta.build || meta.format !== FORMAT) ? save() : meta; })
        .catch(function () { return meta; });
    });
  }

  function forget() {
    return root.caches.delete(CACHE).then(function () { loaded = null; });
  }

  // -- the pack, read once per page (or worker) -------------------------------------------------------------
  var loaded = null;
  function load() {
    if (loaded) return loaded;
    loaded = saved().then(function (meta) {
      if (!meta) throw new Error("nothing is saved for offline use");
      return cache().then(function (c) { return c.match(meta.url, { ignoreVary: true }); })
        .then(function (r) {
          if (!r) throw new Error("the saved pack is missing; save it again");
          return r.json();
        })
        .then(function (pack) {
          if (pack.format !== FORMAT) throw new Error("the saved rules are in an older form; save them again");
          return new Kb(pack, meta);
        });
    });
    loaded.catch(function () { loaded = null; });
    return loaded;
  }

  function Kb(pack, meta) {
    var self = this;
    this.meta = meta;
    this.build = pack.build;
    this.packLabel = pack.label;
    this.documents = pack.documents;
    this.names = pack.names || {};
    this.docs = {};
    pack.documents.forEach(function (d) { self.docs[d.slug] = d; });
    this.records = {};
    this.order = pack.records;
    this.children = {};
    this.numbers = {};
    this.sections = [];
    this.cards = [];
    pack.records.forEach(function (r, i) {
      r.doc = r.i.split("/")[0];
      r.pos = i;
      self.records[r.i] = r;
      if (r.p) (self.children[r.p] = self.children[r.p] || []).push(r);
      if ((r.k === "rule" || r.k === "chapter") && r.n && r.i === r.doc + "/" + r.n.toLowerCase()) {
        (self.numbers[r.doc] = self.numbers[r.doc] || {})[r.n.toLowerCase()] = r;
      } else if (r.k === "section" && r.t) {
        self.sections.push({ key: words(r.t).join(" "), words: titleKey(words(r.t)), record: r });
      } else if (r.k === "card" && r.t) {
        var key = nameKey(r.t);
        self.cards.push({ key: key, words: key.split(" "), record: r });
      }
    });
    this.index = null;  // the word index, made at the first word search
  }

  Kb.prototype.get = function (id) { return this.records[id] || null; };

  // "907.4b", "702.187 Unveil", "Token Cards g)", "The Bio-Engineer, ruling 6": as the site names a record
  Kb.prototype.label = function (r) {
    return r.l || [r.n, r.t].filter(Boolean).join(" ") || r.i.split("/").pop();
  };

  Kb.prototype.docTitle = function (slug) {
    var d = this.docs[slug];
    return d ? d.title : slug === "keywords" ? "Keywords (gathered from every document)" : slug;
  };

  // -- words ------------------------------------------------------------------------------------------------
  var NON_ASCII = /[^\x00-\x7f]/;
  function fold(text) {
    var s = String(text).toLowerCase();  // most text is ASCII: NFKD only where it is not (Æther, Lim-Dûl)
    return NON_ASCII.test(s) ? s.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/æ/g, "ae") : s;
  }
  function words(text) { return fold(text).replace(/['\u2019]/g, "").match(/[a-z0-9]+/g) || []; }
  function nameKey(text) { return words(text).join(" "); }
  function titleKey(ws) {
    return ws.map(function (w) { return w.length > 3 && w.slice(-1) === "s" ? w.slice(0, -1) : w; })
      .filter(function (w) { return w !== "uncommander" && w !== "section" && w !== "rule"; });
  }

  // -- references --------------------------------------------------------------------------------------------
  var NUMBER = /^(\d{3})(?:\.(\d{1,3})(tr|a[a-z]|[a-z])?)?$/;
  var PREFIX = /^(?:official\s+(?:comprehensive\s+)?rules?\s*|official\s+cr\s*|comprehensive\s+rules?\s*|cr\.?\s*(?:rules?\s*|r\.?\s*)?[§#:/]?\s*|rules?\s*[§#]?\s*|sections?\s*|sec\.?\s*|r\.?\s*(?=\d)|§\s*)/;

  // The reference a whole query is, as {numbers, doc, prefer, official, section, item}, or null.
  Kb.prototype.parseRef = function (text) {
    var s = fold(text).trim().replace(/^[(\["'\u201c]+/, "").replace(/[)\]"'\u201d.,;:!?]+$/, "").trim();
    if (!s || s.length > 200) return null;
    var q = { numbers: [], doc: null, prefer: null, official: false };
    var slash = s.match(/^([a-z]+)\/(\d.*)$/);  // a record's id as links write it: treachery/907.4b
    if (slash && this.docs[slash[1]]) { q.doc = slash[1]; s = slash[2]; }
    var names = Object.keys(this.names).sort(function (a, b) { return b.length - a.length; });
    for (var i = 0; i < names.length && !q.doc; i++) {
      var n = names[i];
      if (s.indexOf(n + " ") === 0 && /\d/.test(s.slice(n.length))) { q.doc = this.names[n]; s = s.slice(n.length).trim(); }
      var after = s.match(new RegExp("^(.*?\\d\\S*)\\s+(?:(?:of|in|from)\\s+(?:the\\s+)?)?\\(?" +
        n.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") + "\\)?(?:\\s+rules?)?$"));
      if (!q.doc && after) { q.doc = this.names[n]; s = after[1]; }
    }
    var m = s.match(PREFIX), prefixed = false;
    if (m && m[0]) {
      prefixed = true;
      if (/^official/.test(m[0])) q.official = true;
      else if (/^cr/.test(m[0])) q.prefer = "cr";
      s = s.slice(m[0].length);
    }
    if (/\s+in\s+the\s+official\s+(?:cr|comprehensive\s+rules?)$/.test(s)) {
      q.official = true; s = s.replace(/\s+in\s+the\s+official.*$/, "");
    }
    // loose forms of a whole query: a comma or space or hyphen for the dot, the letter in brackets, O for zero
    s = s.replace(/^(\d{3}),(\d)/, "$1.$2").replace(/^(\d{3})[ -](\d{1,3}[a-z]{0,2})$/, "$1.$2")
      .replace(/^(\d{3}\.\d{1,3}) ?\(?([a-z]{1,2})\)?$/, "$1$2").replace(/o/g, function (o, at, all) {
        return /\d/.test(all.charAt(at - 1)) && /[\d.]/.test(all.charAt(at + 1)) ? "0" : o;
      });
    var range = s.match(/^(\d{3}\.\d{1,3})([a-z])\s*(?:-|\u2013|\u2014|to|through)\s*([a-z])$/);
    if (range) {
      for (var c = range[2].charCodeAt(0); c <= range[3].charCodeAt(0); c++) {
        var letter = String.fromCharCode(c);
        if (letter !== "l" && letter !== "o") q.numbers.push(range[1] + letter);
      }
      return q.numbers.length ? q : null;
    }
    if (NUMBER.test(s)) { q.numbers.push(s); return q; }
    if (prefixed && /^\d$/.test(s)) { q.numbers.push(s); return q; }  // a chapter: "rule 4", "CR 7"
    return this.parseSection(text);
  };

  // An UnCommander rule by its section's title (or the title's first words) and letter: "Token Cards j",
  // "Token Cards (j)", "die rolls and coin flips d iii", "golden rules a".
  Kb.prototype.parseSection = function (text) {
    var ws = words(text).filter(function (w) { return w !== "uncommander"; });
    var item = [];
    if (ws.length >= 3 && /^[ivx]{1,5}$/.test(ws[ws.length - 1]) && /^[a-z]{1,2}$/.test(ws[ws.length - 2])) {
      item = ws.slice(-2); ws = ws.slice(0, -2);
    } else if (ws.length >= 2 && /^[a-z]{1,2}$/.test(ws[ws.length - 1])) {
      item = ws.slice(-1); ws = ws.slice(0, -1);
    }
    var whole = ws.join(" ");
    var exact = this.sections.filter(function (s) { return s.key === whole || s.key === ws.filter(function (w) {
      return w !== "section"; }).join(" "); });
    var key = titleKey(ws);
    var said = key.join(" "), one = this.sections.some(function (s) { return s.words.join(" ") === said; });
    // one word names a section only whole ("golden rules a"; "borders b" is no section's start)
    var fits = exact.length ? exact : !key.length || !item.length || (key.length < 2 && !one) ? [] :
      this.sections.filter(function (s) { return s.words.slice(0, key.length).join(" ") === said; });
    if (fits.length !== 1) return null;
    return { numbers: [], section: fits[0].record, item: item };
  };

  function descends(number, old) {
    return number === old || (number.indexOf(old) === 0 && /^[.a-z]/.test(number.charAt(old.length)));
  }

  // The records a reference names: {matches: [records], note}
  Kb.prototype.resolve = function (text) {
    var q = typeof text === "string" ? this.parseRef(text) : text;
    if (!q) return null;
    if (q.section) {
      if (!q.item.length) return { matches: [q.section], note: null };
      var r = this.get(q.section.i + "/" + q.item.join("/"));
      return r ? { matches: [r], note: null } : { matches: [], note: q.section.t + " has no rule " + q.item.join(") ") + ")" };
    }
    var self = this, order = this.documents.map(function (d) { return d.slug; });
    var docs = q.doc ? [q.doc] : q.official ? ["cr"] :
      order.filter(function (d) { return d !== "cr"; }).concat(order.indexOf("cr") >= 0 ? ["cr"] : []);
    if (q.prefer && docs.indexOf(q.prefer) > 0) { docs.splice(docs.indexOf(q.prefer), 1); docs.unshift(q.prefer); }
    var matches = [], notes = [];
    q.numbers.forEach(function (number) {
      var found = docs.map(function (d) { return (self.numbers[d] || {})[number]; }).filter(Boolean);
      // "CR 7": the official rules' chapter alone when they have it (Treachery has a chapter 7 too)
      if (q.numbers.length > 1 || (q.prefer && found.length && found[0].doc === q.prefer)) found = found.slice(0, 1);
      if (!found.length) {
        docs.some(function (d) {
          var doc = self.docs[d] || {};
          var gone = (doc.removed || []).filter(function (x) { return x.number.toLowerCase() === number; })[0];
          if (gone) { notes.push((doc.short_title || doc.title) + " rule " + gone.number + " was " + gone.why); return true; }
          return (doc.renamed || []).some(function (x) {
            var old = x.old.toLowerCase(), now = x["new"].toLowerCase() + number.slice(old.length);
            if (descends(number, old) && (self.numbers[d] || {})[now]) {
              found = [self.numbers[d][now]];
              notes.push(x.old + " was renamed " + x["new"] + " in version " + x.version);
              return true;
            }
            return false;
          });
        });
      }
      if (!found.length && !notes.length) notes.push("no rule " + number + " in the saved documents");
      found.forEach(function (r) { if (matches.indexOf(r) < 0) matches.push(r); });
    });
    return { matches: matches, note: notes.join("; ") || null };
  };

  // -- cards --------------------------------------------------------------------------------------------------
  function distance(a, b, limit) {  // Damerau-Levenshtein (adjacent swaps), or limit + 1 once past it
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    var prev2 = null, prev = [], i, j;
    for (j = 0; j <= b.length; j++) prev.push(j);
    for (i = 1; i <= a.length; i++) {
      var row = [i], best = i;
      for (j = 1; j <= b.length; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var v = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
        if (prev2 && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
        row.push(v);
        if (v < best) best = v;
      }
      if (best > limit) return limit + 1;
      prev2 = prev; prev = row;
    }
    return prev[b.length];
  }

  function wordsFit(typed, ws) {
    var i = 0;
    for (var t = 0; t < typed.length; t++) {
      while (i < ws.length && ws[i].indexOf(typed[t]) !== 0) i++;
      if (i === ws.length) return false;
      i++;
    }
    return true;
  }

  // {card, candidates, how}: exactly ("exact"), by the start of each word when one card fits ("words"), within two
  // typos ("typo"), or by the end of a word of one name that the documents never use ("ending": goyf)
  Kb.prototype.findCard = function (text) {
    var key = nameKey(text);
    var out = { card: null, candidates: [], how: null };
    if (!key || key.length > 60) return out;
    var exact = this.cards.filter(function (c) { return c.key === key || c.key === "the " + key; });
    if (exact.length === 1) { out.card = exact[0].record; out.key = exact[0].key; out.how = "exact"; return out; }
    var typed = key.split(" ");
    var fits = exact.length ? exact : this.cards.filter(function (c) {
      return wordsFit(typed, c.words) && (typed[0] !== "the" || c.words[0] === "the");
    });
    if (fits.length === 1) { out.card = fits[0].record; out.how = "words"; return out; }
    if (fits.length) { out.candidates = fits.slice(0, 25).map(function (c) { return c.record; }); return out; }
    if (key.length < 4) return out;
    var limit = key.length <= 5 ? 1 : 2, best = null, bestD = limit + 1;
    this.cards.forEach(function (c) {
      var d = Math.min(distance(key, c.key, limit), c.words[0] === "the" ? distance(key, c.key.slice(4), limit) : limit + 1);
      if (d < bestD) { best = c; bestD = d; }
    });
    if (best) { out.card = best.record; out.how = "typo"; return out; }
    if (typed.length === 1) {
      var ending = this.cards.filter(function (c) {
        return c.words.some(function (w) { return w.length > key.length && w.slice(-key.length) === key; });
      });
      if (!this.index) this.buildIndex();
      if (ending.length === 1 && !this.postings(stem(key)).length) { out.card = ending[0].record; out.how = "ending"; }
    }
    return out;
  };

  // -- words: a small inverted index over titles and text ------------------------------------------------------
  var STOP = Object.create(null);
  ("a an and are as at be by can do does for from has have how i if in into is it its of on or that the their " +
   "then there this to was what when where which who will with you your").split(" ").forEach(function (w) { STOP[w] = 1; });

  var stems = Object.create(null);
  function stem(w) {
    var s = stems[w];
    if (s === undefined) s = stems[w] = suffixless(w);
    return s;
  }
  function suffixless(w) {
    if (w.length > 5 && /ing$/.test(w)) return w.slice(0, -3);
    if (w.length > 4 && /ies$/.test(w)) return w.slice(0, -3) + "y";
    if (w.length > 4 && /(?:ss|us)$/.test(w)) return w;
    if (w.length > 4 && /es$/.test(w) && /(?:ch|sh|x|ss)es$/.test(w)) return w.slice(0, -2);
    if (w.length > 3 && /s$/.test(w)) return w.slice(0, -1);
    if (w.length > 4 && /ed$/.test(w)) return w.slice(0, -2);
    return w;
  }

  var WORD = /[a-z0-9]+/g;
  function terms(text) {
    var out = [], s = fold(text).replace(/['\u2019]/g, ""), m;
    WORD.lastIndex = 0;
    while ((m = WORD.exec(s))) if (STOP[m[0]] !== 1) out.push(stem(m[0]));
    return out;
  }

  function recordText(r) {
    return [r.x, r.rt, r.tl, r.at].concat(r.ex || [], r.cm || []).filter(Boolean).join(" ");
  }

  // The index: each record's title and text folded once (a few tens of milliseconds), and each word's postings
  // ([record, weighted count, ...]) made the first time a search asks for it, by a scan of those texts: a phone
  // answers its first search without first indexing a million characters (half a second on a desktop).
  Kb.prototype.buildIndex = function () {
    var titles = [], texts = [], lengths = [], total = 0;
    this.order.forEach(function (r) {
      var title = clean((r.n || "") + " " + (r.t || "")), text = clean(recordText(r));
      var n = (title.length * 3 + text.length) / 6;  // about six characters a word
      titles.push(title); texts.push(text); lengths.push(n); total += n;
    });
    this.index = { titles: titles, texts: texts, lengths: lengths, average: total / Math.max(1, lengths.length),
                   postings: new Map() };
  };
  function clean(text) { return fold(text).replace(/['\u2019]/g, ""); }

  Kb.prototype.postings = function (term) {
    var idx = this.index, list = idx.postings.get(term);
    if (list !== undefined) return list;
    list = [];
    // the words whose stem is the term start with it (less a final y: ability, abilities)
    var start = term.length > 3 && term.slice(-1) === "y" ? term.slice(0, -1) : term;
    var re = new RegExp("(?:^|[^a-z0-9])(" + start + "[a-z0-9]{0,5})(?![a-z0-9])", "g");
    function count(s) {
      var n = 0, m;
      re.lastIndex = 0;
      while ((m = re.exec(s))) { if (stem(m[1]) === term && STOP[m[1]] !== 1) n++; re.lastIndex = m.index + m[0].length; }
      return n;
    }
    for (var i = 0; i < idx.texts.length; i++) {
      var tf = (idx.titles[i].indexOf(start) >= 0 ? 3 * count(idx.titles[i]) : 0) +  // a title's word counts thrice
        (idx.texts[i].indexOf(start) >= 0 ? count(idx.texts[i]) : 0);
      if (tf) list.push(i, tf);
    }
    idx.postings.set(term, list);
    return list;
  };

  // Records by BM25 over titles (weighted) and text; every word when some record has them all, else the most.
  // A "quoted phrase" must appear as written. doc:<slug> and kind:<kind> narrow the results.
  Kb.prototype.search = function (query, limit) {
    if (!this.index) this.buildIndex();
    var idx = this.index, records = this.order, n = records.length, filters = {};
    var text = String(query).replace(/\b(doc|kind):(\S+)/gi, function (all, k, v) { filters[k.toLowerCase()] = v.toLowerCase(); return " "; });
    var phrases = (text.match(/"[^"]+"/g) || []).map(function (p) { return fold(p.slice(1, -1)).trim(); });
    var qs = terms(text).filter(function (t, i, all) { return all.indexOf(t) === i; });
    var scores = {}, hits = {}, kb = this;
    qs.forEach(function (t) {
      var list = kb.postings(t);
      if (!list.length) return;
      var df = list.length / 2, idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
      for (var j = 0; j < list.length; j += 2) {
        var i = list[j], tf = list[j + 1];
        var norm = tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * idx.lengths[i] / idx.average));
        scores[i] = (scores[i] || 0) + idf * norm;
        hits[i] = (hits[i] || 0) + 1;
      }
    });
    var ids = Object.keys(scores).map(Number);
    var most = ids.reduce(function (m, i) { return Math.max(m, hits[i]); }, 0);
    ids = ids.filter(function (i) {
      var r = records[i];
      if (hits[i] < most) return false;
      if (filters.doc && r.doc !== filters.doc) return false;
      if (filters.kind && r.k !== filters.kind) return false;
      if (phrases.length) {
        var all = idx.titles[i] + " " + idx.texts[i];
        if (!phrases.every(function (p) { return all.indexOf(p) >= 0; })) return false;
      }
      return true;
    });
    var whole = qs.join(" "), pointed = [];
    ids.forEach(function (i) {
      // the title the words name ("lifelink", "legend rule", "mulligan" for Mulligans) first, the official rules'
      // own rule first of those, as the server ranks them
      var r = records[i];
      if (r.t && terms(r.t).join(" ") === whole) {
        scores[i] += 100 + (r.doc === "cr" ? 2 : 0) + (r.k === "rule" ? 1 : 0);
        // and the rule a glossary entry of that name points to, before the entry ("legend rule": 704.5j)
        var to = r.k === "glossary" && r.r && kb.get(r.r[0][2]);
        if (to && to.k === "rule") pointed.push([to.pos, i]);
      }
    });
    pointed.forEach(function (pair) {
      if (!(pair[0] in scores)) ids.push(pair[0]);
      scores[pair[0]] = Math.max(scores[pair[0]] || 0, scores[pair[1]] + 1);
    });
    ids.sort(function (a, b) { return scores[b] - scores[a] || a - b; });
    return { total: ids.length, hits: ids.slice(0, limit || 20).map(function (i) { return records[i]; }) };
  };

  // What the search box does with a query: {redirect: record} for one rule or one card, else {results}.
  Kb.prototype.lookup = function (query) {
    var q = String(query).trim();
    if (!q) return { results: { total: 0, hits: [] } };
    var ref = this.resolve(q);
    if (ref && ref.matches.length === 1) return { redirect: ref.matches[0], note: ref.note };
    if (ref && ref.matches.length > 1) return { choices: ref.matches, note: ref.note };
    if (!/\d/.test(q) && !/:/.test(q)) {
      // a card's exact name opens it; a part of a name, a typo or a nickname lists it first, with its rulings
      var card = this.findCard(q);
      if (card.how === "exact" && nameKey(q) === card.key) return { redirect: card.card };
      if (card.card) {
        var first = [card.card].concat(this.children[card.card.i] || []), words = this.search(q, 20);
        var hits = first.concat(words.hits.filter(function (r) { return first.indexOf(r) < 0; })).slice(0, 20);
        return { results: { total: hits.length, hits: hits }, card: card.card,
                 note: "showing " + card.card.t + " for \u2018" + q + "\u2019" };
      }
    }
    return { results: this.search(q, 20), note: ref && ref.note };
  };

  // What the search box suggests as it is typed (/api/autocomplete's answer, offline): rules by the start of their
  // number, else titles (rules, cards, sections, glossary entries, keywords) by the start of the title, then of a
  // word of it.
  Kb.prototype.complete = function (query, limit) {
    limit = limit || 10;
    var q = fold(query).trim(), self = this, out = [];
    if (!q || q.length > 100) return out;
    var number = q.match(/^(?:cr\s*|rules?\s*|r\s+|§\s*)?(\d{3}(?:\.\d{0,3}[a-z]{0,2})?)$/), found = [];
    if (number) {
      var order = this.documents.map(function (d) { return d.slug; });
      if (/^cr/.test(q) && order.indexOf("cr") > 0) { order.splice(order.indexOf("cr"), 1); order.unshift("cr"); }
      order.forEach(function (d) {
        Object.keys(self.numbers[d] || {}).forEach(function (n) { if (n.indexOf(number[1]) === 0) found.push(self.numbers[d][n]); });
      });
      found.sort(function (a, b) { return (a.doc === b.doc ? 0 : order.indexOf(a.doc) - order.indexOf(b.doc)) || a.pos - b.pos; });
    } else {
      var starts = [], inside = [];
      this.order.forEach(function (r) {
        if (!r.t || r.k === "ruling" || r.k === "history") return;
        var t = fold(r.t);
        if (t.indexOf(q) === 0) starts.push(r);
        else if (t.indexOf(" " + q) > 0) inside.push(r);
      });
      found = starts.concat(inside);
    }
    found.slice(0, limit).forEach(function (r) {
      var d = self.docs[r.doc];
      var text = r.n && r.x ? r.x.replace(/\s+/g, " ") : "";
      out.push({ label: self.label(r), id: r.i, url: "/" + r.i, excerpt: text ? (text.length > 60 ? text.slice(0, 59) + "\u2026" : text) : null,
                 doc: r.doc, document: self.docTitle(r.doc),
                 document_short: r.doc === "cr" ? "CR" : d ? d.short_title || d.title : self.docTitle(r.doc) });
    });
    return out;
  };

  // A record as /api/records/<id> answers the reference previews, offline: its number, title and text.
  Kb.prototype.recordJson = function (id) {
    var r = this.get(id);
    return r ? { id: r.i, doc: r.doc, kind: r.k, number: r.n || null, title: r.t || null, text: r.x || "" } : null;
  };

  var api = { CACHE: CACHE, META: META, SHELL: SHELL, FORMAT: FORMAT, save: save, saved: saved, refresh: refresh,
              forget: forget, load: load, Kb: Kb, fold: fold, distance: distance };
  root.KBOffline = api;
})(typeof self !== "undefined" ? self : this);
