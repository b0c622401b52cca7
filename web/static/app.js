// Progressive enhancement: autocomplete, reference previews, copy buttons,
// keyboard shortcuts ("/" to search, j/k or arrows for the next/previous rule).
// The site works without any of this.
(function () {
  "use strict";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // -- autocomplete ---------------------------------------------------------
  var small = window.matchMedia("(max-width: 700px)");
  function autocomplete(input) {
    var form = input.form, list = el("ul", { class: "ac-list", role: "listbox" }), items = [], active = -1, timer = null, seq = 0;
    list.hidden = true;
    input.setAttribute("role", "combobox");
    input.setAttribute("aria-autocomplete", "list");
    form.appendChild(list);

    function close() { list.hidden = true; active = -1; input.setAttribute("aria-expanded", "false"); }
    function select(i) {
      active = i;
      Array.prototype.forEach.call(list.children, function (li, j) { li.setAttribute("aria-selected", j === i ? "true" : "false"); });
    }
    function show(results) {
      list.textContent = "";
      items = results;
      results.forEach(function (r, i) {
        var li = el("li", { role: "option", "data-url": r.url }, r.label);
        // the short name ("CR"): the full title took two lines a suggestion on a phone
        if (r.document) li.appendChild(el("span", { class: "ac-doc", title: r.document }, r.document_short || r.document));
        // a few words of a numbered rule ("704.5j" alone said nothing of the legend rule), cut to the line
        if (r.excerpt) li.appendChild(el("span", { class: "ac-text" }, r.excerpt));
        li.addEventListener("mousedown", function (e) { e.preventDefault(); window.location.href = r.url; });
        list.appendChild(li);
      });
      list.hidden = results.length === 0;
      input.setAttribute("aria-expanded", results.length ? "true" : "false");
      active = -1;
      if (results.length) aboveTheKeyboard();
    }
    // On a phone the on-screen keyboard covers the lower ~40% of the screen: the box goes to the top of the
    // screen while suggestions show (on / 9 of 10 for "702.1" lay under it), and the list scrolls within what
    // the keyboard leaves visible.
    function aboveTheKeyboard() {
      if (!small.matches) return;
      var top = form.getBoundingClientRect().top;
      if (top > 8) {
        // a short page (a 404's box) cannot scroll that far: it grows to
        var need = window.scrollY + top - 8 + window.innerHeight;
        if (document.documentElement.scrollHeight < need) document.body.style.minHeight = need + "px";
        window.scrollBy(0, top - 8);
      }
      fit();
    }
    function fit() {
      var view = window.visualViewport, bottom = view ? view.offsetTop + view.height : window.innerHeight;
      var room = bottom - list.getBoundingClientRect().top - 8;
      list.style.maxHeight = small.matches && room > 120 ? room + "px" : "";
    }
    if (window.visualViewport) window.visualViewport.addEventListener("resize", function () { if (!list.hidden) fit(); });
    input.addEventListener("input", function () {
      clearTimeout(timer);
      var q = input.value.trim();
      if (!q) { close(); return; }
      timer = setTimeout(function () {
        var mine = ++seq;
        fetch("/api/autocomplete?q=" + encodeURIComponent(q)).then(function (r) { return r.ok ? r.json() : []; })
          .then(function (results) { if (mine === seq) show(results); }).catch(function () {});
      }, 120);
    });
    input.addEventListener("keydown", function (e) {
      if (list.hidden) return;
      if (e.key === "ArrowDown") { e.preventDefault(); select(Math.min(active + 1, items.length - 1)); }
      else if (e.key === "ArrowUp") { e.preventDefault(); select(Math.max(active - 1, 0)); }
      else if (e.key === "Enter" && active >= 0) { e.preventDefault(); window.location.href = items[active].url; }
      else if (e.key === "Escape") { close(); }
    });
    input.addEventListener("blur", function () { setTimeout(close, 150); });
  }

  // -- reference previews -----------------------------------------------------
  var cache = {}, popup = null, wanted = null;  // wanted: the link the pointer or focus is on now
  function hidePreview() { if (popup) { popup.remove(); popup = null; } }
  function leave() { wanted = null; hidePreview(); }
  // What a link previews, and where from: a rule (data-id) its record; a range ("rules 205.1a–b") its /r/ page's
  // answer, as /r/ unfurls it (the count, then its first rule's words); a dated one ("707.6 as of 2016-07-22") the
  // rule as it stood that day, its page's JSON twin.
  var PREVIEWED = "a.ref[data-id], a.ref.range[href], a.ref.dated[href]";
  function source(link) {
    var id = link.getAttribute("data-id");
    if (id) return { url: "/api/records/" + id, read: function (rec) {
      return { label: [rec.number, rec.title].filter(Boolean).join(" "),
               text: rec.summary !== undefined ? rec.summary : (rec.text || rec.rules_text || "") };
    } };
    if (link.classList.contains("range")) return { url: link.getAttribute("href"), read: function (res) {
      var first = (res.matches || [])[0];
      return { label: res.what || "", text: first ? first.title + ": " + (first.summary || "") : (res.note || "") };
    } };
    return { url: link.getAttribute("href"), read: function (then) {
      // a heading without words of its own ("719 as of 2020-04-17"): its title and first rule, as they stood
      var first = (then.rules || []).filter(function (r) { return r.text; })[0];
      var heading = then.title ? then.title + (first ? " — " + first.number + " " + first.text : "") : "";
      return { label: [then.number, "as of", then.effective].join(" "), text: then.text || heading || then.banner || "" };
    } };
  }
  function showPreview(link) {
    var from = source(link);
    wanted = link;
    var render = function (shown) {
      hidePreview();
      popup = el("div", { class: "preview", role: "tooltip" });
      if (shown.label) popup.appendChild(el("strong", {}, shown.label));
      popup.appendChild(el("p", {}, shown.text.replace(/_/g, "").slice(0, 600)));
      var box = link.getBoundingClientRect();
      popup.style.left = (window.scrollX + box.left) + "px";
      popup.style.top = (window.scrollY + box.bottom + 6) + "px";
      document.body.appendChild(popup);
    };
    if (cache[from.url]) { render(cache[from.url]); return; }
    fetch(from.url, { headers: { Accept: "application/json" } })
      .then(function (r) { return r.ok ? r.json() : null; })
      // on a slow network the answer can come after the pointer left: kept, not shown
      .then(function (got) {
        if (got) { cache[from.url] = from.read(got); if (wanted === link) render(cache[from.url]); }
      })
      .catch(function () {});
  }
  // A preview follows a pointer that hovers (a mouse, a pen) or the keyboard's focus, never a tap: on a touch
  // screen the tap's own mouseover and focus started the fetch, and the navigation it made aborted it.
  var hovers = window.matchMedia ? window.matchMedia("(hover: hover)") : null;
  function fromKeyboard(link) {
    try { return link.matches(":focus-visible"); } catch (err) { return true; }  // no :focus-visible: as before
  }
  document.addEventListener("pointerover", function (e) {
    if (e.pointerType === "touch" || (hovers && !hovers.matches)) return;
    var link = e.target.closest && e.target.closest(PREVIEWED);
    if (link) showPreview(link);
  });
  document.addEventListener("pointerout", function (e) {
    if (e.target.closest && e.target.closest(PREVIEWED)) leave();
  });
  document.addEventListener("focusin", function (e) {
    if (e.target.matches && e.target.matches(PREVIEWED) && fromKeyboard(e.target)) showPreview(e.target);
  });
  document.addEventListener("focusout", leave);

  // -- copy buttons (for chat, short link) ----------------------------------------
  function copyButton(button) {
    if (!navigator.clipboard) return;
    var label = button.getAttribute("data-label") || button.textContent;
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 1500);
      }).catch(function () { button.textContent = "Copy failed"; });
    });
  }

  // -- keyboard: "/" focuses the search box; j/k or arrows move between rules ----------
  function typing(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    if (e.key === "/") {
      var box = document.querySelector("main input[type=search]") || document.querySelector("input[type=search]");
      if (box) { e.preventDefault(); box.focus(); box.select(); }
      return;
    }
    if (!document.querySelector("article.record")) return;
    var rel = { j: "next", ArrowRight: "next", k: "prev", ArrowLeft: "prev" }[e.key];
    var link = rel && document.querySelector("nav.prevnext a[rel=" + rel + "]");
    if (link) { e.preventDefault(); window.location.href = link.href; }
  });

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("input[data-autocomplete]").forEach(autocomplete);
    document.querySelectorAll("button[data-copy]").forEach(copyButton);
    // On a phone the filters fold away below the results.
    if (window.matchMedia("(max-width: 700px)").matches) {
      document.querySelectorAll("details.facets").forEach(function (d) { d.open = false; });
    }
  });
})();
