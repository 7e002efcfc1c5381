/* causalqa's web page: plain JavaScript over the /v1 API, graphs drawn by cytoscape.js.
   Every text from the server or the user is put on the page as text (never as HTML). */
(function () {
  "use strict";

  var state = { token: sessionStorage.getItem("causalqa-token") || "", model: "", detail: null,
                session: null, cy: null, showing: "model", ready: false, story: null };
  window.causalqa = state; // for the browser tests and the curious

  function $(id) { return document.getElementById(id); }
  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "class") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) {
      if (c !== null && c !== undefined) e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    });
    return e;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  // -- the API ------------------------------------------------------------------------------
  function ApiError(status, error) {
    this.status = status;
    this.code = (error && error.code) || "error";
    this.message = (error && error.message) || ("HTTP " + status);
    this.hint = error && error.hint;
  }
  function api(method, path, body, isForm) {
    var headers = {};
    if (state.token) headers.Authorization = "Bearer " + state.token;
    var init = { method: method, headers: headers };
    if (body !== undefined) {
      if (isForm) init.body = body;
      else { headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    }
    return fetch(path, init).then(function (r) {
      if (r.status === 204) return null;
      return r.json().catch(function () { return {}; }).then(function (data) {
        if (r.ok) return data;
        if (r.status === 401) askToken();
        throw new ApiError(r.status, data.error);
      });
    });
  }
  function describeError(e) {
    if (e instanceof ApiError) return e.message + (e.hint ? " — " + e.hint : "");
    return String(e && e.message || e);
  }
  function askToken() {
    var d = $("token-dialog");
    if (!d.open && d.showModal) d.showModal();
  }
  $("token-form").addEventListener("submit", function () {
    state.token = $("token-input").value.trim();
    sessionStorage.setItem("causalqa-token", state.token);
    loadModels();
  });

  // -- status -------------------------------------------------------------------------------
  function pollStatus() {
    api("GET", "/v1/ready").then(function (r) {
      state.ready = true;
      setStatus("ready", "model ready · " + r.model);
    }, function (e) {
      state.ready = false;
      if (e.status === 401) setStatus("", "token needed");
      else setStatus(/failed/.test(e.message) ? "failed" : "loading", e.message);
      setTimeout(pollStatus, 3000);
    });
  }
  function setStatus(kind, text) {
    var s = $("status");
    s.className = "badge " + kind;
    s.textContent = text;
  }

  // -- tabs ---------------------------------------------------------------------------------
  Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (b) {
    b.addEventListener("click", function () {
      Array.prototype.forEach.call(document.querySelectorAll(".tabs button"), function (o) {
        o.setAttribute("aria-selected", String(o === b));
        $("tab-" + o.dataset.tab).hidden = o !== b;
      });
      if (b.dataset.tab === "story") { if (state.story) drawStory(state.story); }
      else if (b.dataset.tab !== "discover" && state.showing !== "model") showModelGraph();
    });
  });

  // -- the graph ----------------------------------------------------------------------------
  var STYLE = [
    { selector: "node", style: {
      "label": "data(label)", "text-valign": "center", "text-halign": "center",
      "text-wrap": "wrap", "text-max-width": "110px", "font-size": 12, "color": "#1f2933",
      "shape": "round-rectangle", "width": "data(w)", "height": "data(h)",
      "background-color": "#e4e7eb", "border-width": 1, "border-color": "#9aa5b1" } },
    { selector: "node.treatment", style: { "border-color": "#2563eb", "border-width": 2 } },
    { selector: "node.outcome", style: { "border-color": "#15803d", "border-width": 3 } },
    { selector: "node.endpoint", style: { "background-color": "#e4ecfb", "border-color": "#2563eb", "border-width": 2 } },
    { selector: "node.unobserved", style: { "border-style": "dashed", "background-color": "#fff" } },
    { selector: "edge", style: {
      "width": 2, "line-color": "#9aa5b1", "target-arrow-color": "#9aa5b1",
      "target-arrow-shape": "triangle", "curve-style": "bezier", "arrow-scale": 1.1 } },
    { selector: "edge.long", style: { "curve-style": "unbundled-bezier", "control-point-distances": 55,
      "control-point-weights": 0.5 } },
    { selector: "edge.undirected", style: { "target-arrow-shape": "none" } },
    { selector: "edge[label]", style: { "label": "data(label)", "font-size": 10, "color": "#616e7c",
      "text-background-color": "#fff", "text-background-opacity": 0.8 } },
    { selector: ".dim", style: { "opacity": 0.3 } },
    { selector: "node.used", style: { "background-color": "#fde9c8", "border-color": "#d97706", "border-width": 3 } },
    { selector: "edge.used", style: { "line-color": "#d97706", "target-arrow-color": "#d97706", "width": 5 } }
  ];

  // A node's box from its label: one line up to 18 characters, else two lines.
  function sized(data) {
    var n = String(data.label).length;
    data.w = n <= 18 ? Math.round(n * 7.4 + 24) : 146;
    data.h = n <= 18 ? 32 : 48;
    return data;
  }

  // A layered drawing of a DAG: each node one layer below its lowest parent (longest path
  // from a root), ordered within its layer by its parents' (then children's) positions.
  function layered(ids, edges) {
    var parents = {}, children = {}, indeg = {}, order = [], queue = [], rank = {}, layers = [];
    ids.forEach(function (n) { parents[n] = []; children[n] = []; });
    edges.forEach(function (e) { children[e[0]].push(e[1]); parents[e[1]].push(e[0]); });
    ids.forEach(function (n) { indeg[n] = parents[n].length; if (!indeg[n]) queue.push(n); });
    while (queue.length) {
      var n = queue.shift();
      order.push(n);
      children[n].forEach(function (c) { if (--indeg[c] === 0) queue.push(c); });
    }
    order.forEach(function (n) {
      rank[n] = parents[n].reduce(function (m, p) { return Math.max(m, rank[p] + 1); }, 0);
      (layers[rank[n]] = layers[rank[n]] || []).push(n);
    });
    var pos = {};
    function number() { layers.forEach(function (l) { l.forEach(function (n, i) { pos[n] = i - (l.length - 1) / 2; }); }); }
    function mean(list, fallback) {
      return list.length ? list.reduce(function (a, b) { return a + pos[b]; }, 0) / list.length : fallback;
    }
    number();
    for (var sweep = 0; sweep < 4; sweep++) {
      var down = sweep % 2 === 0;
      layers.forEach(function (l) {
        var key = {};
        l.forEach(function (n) { key[n] = mean(down ? parents[n] : children[n], pos[n]); });
        l.sort(function (a, b) { return key[a] - key[b]; });
      });
      number();
    }
    var xy = {};
    ids.forEach(function (n) { xy[n] = { x: pos[n] * 175, y: rank[n] * 115, rank: rank[n] }; });
    return xy;
  }

  function draw(elements, layout) {
    if (!window.cytoscape) return;
    if (state.cy) state.cy.destroy();
    elements.forEach(function (e) { if (e.group === "nodes") sized(e.data); });
    state.cy = window.cytoscape({ container: $("graph"), elements: elements, style: STYLE, layout: layout });
  }

  function showModelGraph() {
    state.showing = "model";
    $("graph-back").hidden = true;
    var d = state.detail;
    if (!d) { draw([]); $("graph-title").textContent = "Causal graph"; setLegend([]); return; }
    $("graph-title").textContent = "Causal graph · " + d.name;
    var treatments = new Set(d.treatments);
    var elements = d.nodes.map(function (n) {
      var cls = treatments.has(n) ? "treatment" : (n === d.outcome ? "outcome" : "");
      return { group: "nodes", data: { id: n, label: n }, classes: cls };
    });
    var xy = layered(d.nodes, d.edge_list);
    d.edge_list.forEach(function (e, i) {
      // An edge that skips layers bends, so it does not run under the nodes between.
      var long = xy[e[1]].rank - xy[e[0]].rank > 1;
      elements.push({ group: "edges", data: { id: "e" + i, source: e[0], target: e[1] }, classes: long ? "long" : "" });
    });
    draw(elements, { name: "preset", positions: function (n) { return xy[n.id()]; }, padding: 28 });
    setLegend([d.nodes.length + " variables, " + d.edge_list.length + " edges. Blue border: a treatment; green: the outcome" +
               (d.outcome ? " (" + d.outcome + ")" : "") + "."]);
  }

  function setLegend(parts) {
    var l = clear($("graph-legend"));
    parts.forEach(function (p) { l.appendChild(typeof p === "string" ? document.createTextNode(p) : p); });
  }

  function highlight(h) {
    if (state.showing !== "model") showModelGraph();
    var cy = state.cy;
    var nodes = (h && h.nodes) || [], edges = (h && h.edges) || [];
    $("graph").dataset.highlighted = JSON.stringify({ nodes: nodes, edges: edges });
    if (!cy) return;
    cy.elements().removeClass("used dim");
    if (!nodes.length && !edges.length) return;
    var used = cy.collection();
    nodes.forEach(function (n) { used = used.union(cy.getElementById(n)); });
    edges.forEach(function (e) {
      used = used.union(cy.edges().filter(function (x) { return x.data("source") === e[0] && x.data("target") === e[1]; }));
    });
    used.addClass("used");
    cy.elements().not(used).addClass("dim");
    var text = [el("b", { text: "Used: " })];
    text.push(edges.length ? edges.map(function (e) { return e[0] + " → " + e[1]; }).join(", ")
                           : nodes.join(", "));
    setLegend(text);
  }

  // Paths as the discovery engine writes them: "A - B - C" (relations, when shown, in brackets).
  function splitPath(p) {
    return String(p).split(/\s+-\s*(?:\[[^\]]*\]\s*-\s*)?|\s*(?:->|→|<-|←)\s*/).map(function (s) {
      return s.trim(); }).filter(Boolean);
  }
  function drawPaths(v) {
    state.showing = "paths";
    $("graph-back").hidden = !state.detail;
    $("graph-title").textContent = "Paths between " + v.a + " and " + v.b;
    var nodes = {}, edges = {}, elements = [];
    function node(n, cls) {
      if (!nodes[n]) { nodes[n] = true; elements.push({ group: "nodes", data: { id: "n:" + n, label: n }, classes: cls || "" }); }
    }
    node(v.a, "endpoint"); node(v.b, "endpoint");
    (v.paths || []).forEach(function (p) {
      var stops = splitPath(p);
      stops.forEach(function (s) { node(s); });
      for (var i = 0; i + 1 < stops.length; i++) {
        var key = stops[i] + "\u0000" + stops[i + 1];
        if (!edges[key]) {
          edges[key] = true;
          elements.push({ group: "edges", data: { id: "p" + elements.length, source: "n:" + stops[i], target: "n:" + stops[i + 1] },
                          classes: "undirected used" });
        }
      }
    });
    draw(elements, { name: "breadthfirst", directed: false, roots: ["n:" + v.a], padding: 28,
                     spacingFactor: 1.1 });
    setLegend([(v.paths || []).length ? "The path(s) the model was shown, from the knowledge graph."
                                      : "No path was shown: the verdict comes from the pair alone."]);
  }

  $("graph-back").addEventListener("click", showModelGraph);
  $("graph-fit").addEventListener("click", function () { if (state.cy) state.cy.fit(undefined, 24); });

  // -- models -------------------------------------------------------------------------------
  function loadModels(select) {
    return api("GET", "/v1/models").then(function (r) {
      var s = clear($("model-select"));
      if (!r.models.length) s.appendChild(el("option", { value: "", text: "(no model: upload one)" }));
      r.models.forEach(function (m) {
        s.appendChild(el("option", { value: m.id, text: m.name + (m.name !== m.id ? " (" + m.id + ")" : "") }));
      });
      var want = select || state.model || (r.models[0] && r.models[0].id) || "";
      s.value = want;
      return pickModel(s.value);
    }, function (e) { setStatus("failed", describeError(e)); });
  }

  function pickModel(id) {
    state.model = id;
    state.session = null;
    clear($("chat"));
    if (!id) { state.detail = null; showModelGraph(); renderModelInfo(); return Promise.resolve(); }
    return api("GET", "/v1/models/" + encodeURIComponent(id)).then(function (d) {
      state.detail = d;
      showModelGraph();
      renderModelInfo();
    }, function (e) { note($("models-result"), describeError(e), true); });
  }
  $("model-select").addEventListener("change", function (ev) { pickModel(ev.target.value); });

  function renderModelInfo() {
    var box = clear($("model-info")), d = state.detail;
    if (!d) return;
    var kv = el("dl", { class: "kv" });
    function row(k, v) { kv.appendChild(el("dt", { text: k })); kv.appendChild(el("dd", { text: v })); }
    row("Model", d.name + " (" + d.id + ", " + d.source + ")");
    row("Graph", d.variables + " variables, " + d.edges + " edges" + (d.outcome ? "; outcome " + d.outcome : ""));
    row("Treatments", d.treatments.join(", ") || "—");
    row("Filters", d.filters.join(", ") || "—");
    row("Subjects", String(d.subjects));
    Object.keys(d.ate || {}).forEach(function (t) { row("ATE of " + t, String(d.ate[t])); });
    box.appendChild(kv);
    $("model-delete").disabled = d.read_only;
  }

  function note(box, text, isError) {
    clear(box).appendChild(el("p", { class: isError ? "verdict no" : "", text: text }));
  }

  $("upload-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var f = new FormData();
    f.append("name", $("upload-name").value);
    f.append("graph", $("upload-graph").files[0]);
    if ($("upload-effects").files[0]) f.append("effects", $("upload-effects").files[0]);
    if ($("upload-outcome").value.trim()) f.append("outcome", $("upload-outcome").value.trim());
    busy(ev.target, true);
    api("POST", "/v1/models", f, true).then(function (m) {
      note($("models-result"), "Stored as " + m.id + ": " + m.variables + " variables, " + m.edges + " edges.");
      return loadModels(m.id);
    }, function (e) { note($("models-result"), describeError(e), true); })
      .then(function () { busy(ev.target, false); });
  });

  function list(value) { return value.split(",").map(function (s) { return s.trim(); }).filter(Boolean); }

  $("fit-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var f = new FormData();
    f.append("name", $("fit-name").value);
    f.append("data", $("fit-data").files[0]);
    list($("fit-treatments").value).forEach(function (t) { f.append("treatment", t); });
    f.append("outcome", $("fit-outcome").value.trim());
    if ($("fit-subject").value.trim()) f.append("subject_column", $("fit-subject").value.trim());
    list($("fit-filters").value).forEach(function (t) { f.append("filter", t); });
    busy(ev.target, true);
    var bar = $("fit-progress");
    api("POST", "/v1/models/fit", f, true).then(function (job) {
      bar.hidden = false;
      note($("models-result"), "Fitting… (job " + job.id + ")");
      return followJob(job.id, function (j) {
        if (j.progress && j.progress.total) { bar.max = j.progress.total; bar.value = j.progress.done; }
      });
    }).then(function (job) {
      if (job.status === "done") {
        note($("models-result"), "Fitted and stored as " + job.result.id + ".");
        return loadModels(job.result.id);
      }
      note($("models-result"), (job.error && job.error.message) || job.status, true);
    }, function (e) { note($("models-result"), describeError(e), true); })
      .then(function () { busy(ev.target, false); bar.hidden = true; });
  });

  // A job's server-sent events, read with fetch (so the token header goes along).
  function followJob(id, onEvent) {
    var headers = state.token ? { Authorization: "Bearer " + state.token } : {};
    return fetch("/v1/jobs/" + encodeURIComponent(id) + "/events", { headers: headers }).then(function (r) {
      if (!r.ok || !r.body) throw new ApiError(r.status, null);
      var reader = r.body.getReader(), decoder = new TextDecoder(), buffer = "", last = null;
      function pump() {
        return reader.read().then(function (chunk) {
          if (chunk.done) return last;
          buffer += decoder.decode(chunk.value, { stream: true });
          var events = buffer.split("\n\n");
          buffer = events.pop();
          events.forEach(function (block) {
            var data = block.split("\n").filter(function (l) { return l.indexOf("data: ") === 0; })
              .map(function (l) { return l.slice(6); }).join("\n");
            if (data) { last = JSON.parse(data); onEvent(last); }
          });
          return pump();
        });
      }
      return pump();
    });
  }

  $("model-delete").addEventListener("click", function () {
    if (!state.model || !window.confirm("Delete the model " + state.model + "?")) return;
    api("DELETE", "/v1/models/" + encodeURIComponent(state.model)).then(function () {
      note($("models-result"), "Deleted " + state.model + ".");
      state.model = "";
      return loadModels();
    }, function (e) { note($("models-result"), describeError(e), true); });
  });

  function busy(form, on) {
    Array.prototype.forEach.call(form.querySelectorAll("button"), function (b) { b.disabled = on; });
  }

  // -- ask ----------------------------------------------------------------------------------
  function say(cls, children) {
    var m = el("div", { class: "msg " + cls }, children);
    $("chat").appendChild(m);
    $("chat").scrollTop = $("chat").scrollHeight;
    return m;
  }
  function planText(step) {
    var args = Object.keys(step.args || {}).map(function (k) { return k + "=" + JSON.stringify(step.args[k]); });
    return step.tool + "(" + args.join(", ") + ")";
  }
  function showAnswer(a) {
    var children = [el("div", { class: "answer", text: a.answer })];
    var steps = (a.plan && a.plan.steps) || [];
    if (steps.length) {
      children.push(el("details", { open: "" }, [el("summary", { text: "Plan (tool calls)" })]
        .concat(steps.map(function (s) { return el("div", { class: "plan-step", text: planText(s) }); }))));
    }
    var g = a.grounding || {};
    var grounded = [];
    [].concat(g.variables || [], g.treatments || [], g.subjects || []).forEach(function (x) {
      if (grounded.indexOf(x) < 0) grounded.push(x);
    });
    if (g.where) grounded.push(g.where.filter + " = " + g.where.value);
    if (grounded.length) children.push(el("div", { class: "meta", text: "Grounded: " + grounded.join(", ") }));
    var u = a.usage || {};
    children.push(el("div", { class: "meta", text: a.mode + " · " + (a.model || "") + " · " +
      (u.prompt_tokens || 0) + "+" + (u.completion_tokens || 0) + " tokens · " + a.seconds + " s" }));
    say("bot" + (a.answered ? "" : " unanswered"), children);
    highlight(a.highlight);
  }

  function ensureSession() {
    if (state.session) return Promise.resolve(state.session);
    return api("POST", "/v1/sessions", { model: state.model }).then(function (s) { state.session = s.id; return s.id; });
  }

  $("ask-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var q = $("question").value.trim();
    if (!q) return;
    if (!state.model) { say("error", ["Pick or upload a causal model first."]); return; }
    say("you", [q]);
    $("question").value = "";
    busy(ev.target, true);
    var pending = say("bot", [el("span", { class: "muted", text: "thinking…" })]);
    ensureSession().then(function (sid) {
      return api("POST", "/v1/sessions/" + encodeURIComponent(sid) + "/ask", { question: q }).catch(function (e) {
        if (e.status === 404) { state.session = null; return ensureSession().then(function (s2) {
          return api("POST", "/v1/sessions/" + encodeURIComponent(s2) + "/ask", { question: q }); }); }
        throw e;
      });
    }).then(function (a) { pending.remove(); showAnswer(a); },
            function (e) { pending.remove(); say("error", [describeError(e)]); })
      .then(function () { busy(ev.target, false); $("question").focus(); });
  });
  $("chat-new").addEventListener("click", function () {
    if (state.session) api("DELETE", "/v1/sessions/" + encodeURIComponent(state.session)).catch(function () {});
    state.session = null;
    clear($("chat"));
    highlight(null);
    if (state.cy) state.cy.elements().removeClass("used dim");
    showModelGraph();
  });

  // -- discover -----------------------------------------------------------------------------
  function bar(p) { return el("div", { class: "bar" }, [el("span", { style: "width:" + Math.round(100 * p) + "%" })]); }
  function kv(pairs) {
    var d = el("dl", { class: "kv" });
    pairs.forEach(function (p) {
      if (p[1] === null || p[1] === undefined || p[1] === "") return;
      d.appendChild(el("dt", { text: p[0] }));
      d.appendChild(el("dd", { text: typeof p[1] === "string" ? p[1] : JSON.stringify(p[1]) }));
    });
    return d;
  }

  $("pair-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { a: $("pair-a").value.trim(), b: $("pair-b").value.trim() };
    if ($("pair-context").value.trim()) body.context = $("pair-context").value.trim();
    if ($("pair-method").value) body.method = $("pair-method").value;
    if (body.method === "llm") {  // ranker and paths shown choose the paper's prompt only
      if ($("pair-ranker").value) body.ranker = $("pair-ranker").value;
      if ($("pair-topk").value !== "") body.top_k = Number($("pair-topk").value);
    }
    busy(ev.target, true);
    var box = $("pair-result");
    note(box, "asking…");
    api("POST", "/v1/discover/pair", body).then(function (v) {
      clear(box);
      if (v.method === "evidence") { showEvidence(box, v); return; }
      box.appendChild(el("div", { class: "verdict " + (v.causal ? "yes" : "no"), text: v.verdict }));
      box.appendChild(el("div", { text: "P(causal) = " + v.probability }));
      box.appendChild(bar(v.probability));
      box.appendChild(kv([["Decision", v.decision + (v.threshold !== null ? " (threshold " + v.threshold + ")" : "")],
                          ["Ranker", v.ranker], ["Paths found", String(v.paths_found)], ["Model", v.model],
                          ["Seconds", String(v.seconds)]]));
      if ((v.paths || []).length) {
        box.appendChild(el("div", { text: "Paths shown to the model:" }));
        box.appendChild(el("ul", { class: "paths" }, v.paths.map(function (p) { return el("li", { text: p }); })));
      }
      (v.notes || []).forEach(function (n) { box.appendChild(el("p", { class: "muted", text: "Note: " + n })); });
      drawPaths(v);
    }, function (e) { note(box, describeError(e), true); })
      .then(function () { busy(ev.target, false); });
  });

  // What would decide an unknown pair, in this page's words (the API's hint names its fields).
  var REMEDIES = {
    sentence: function () { return "give a sentence that names both (the Context box)"; },
    kg: function () { return "use a knowledge graph in which a path joins the two (a server started with --kg DIR)"; },
    llm: function () { return "let the LLM judge (the API's \"no_llm\": false)"; },
    llm_model: function () { return "use an evidence model with the LLM feature (a server whose model has it)"; },
    kind: function (r) { return "take the " + r.kind + " node for “" + r.name + "” (the API's \"kinds_" + r.which + "\")"; }
  };
  function showUnknown(box, v) {
    var ab = v.abstention || {};
    box.appendChild(el("div", { class: "verdict refused", id: "pair-unknown", text: "unknown: no evidence either way" }));
    box.appendChild(el("p", { text: "Lacks: " + (ab.reason || "evidence") + "." }));
    var ways = (ab.remedies || []).map(function (r) { return REMEDIES[r.remedy] ? REMEDIES[r.remedy](r) : null; })
      .filter(Boolean);
    if (!ways.length && ab.hint) ways = [ab.hint];
    if (ways.length) {
      box.appendChild(el("div", { text: "What would decide it:" }));
      box.appendChild(el("ul", { class: "remedies" }, ways.map(function (w) { return el("li", { text: w }); })));
    }
    if ((ab.lacking || []).indexOf("path") >= 0) {  // not when a sentence denies the relation
      box.appendChild(el("p", { class: "muted", text: "Node kinds and degrees alone do not decide, so no probability is given." }));
    }
    (v.notes || []).forEach(function (n) { box.appendChild(el("p", { class: "muted", text: "Note: " + n })); });
  }

  function showEvidence(box, v) {
    var p = v.probabilities || {}, ev = v.evidence || {};
    if (v.verdict === "unknown") { showUnknown(box, v); return; }
    box.appendChild(el("div", { class: "verdict " + (v.causal ? "yes" : "no"),
                                text: v.verdict + " (" + v.direction + ")" }));
    box.appendChild(el("div", { text: "P(causal) = " + v.probability }));
    box.appendChild(bar(v.probability));
    box.appendChild(kv([["P(A→B)", String(p["A→B"])], ["P(B→A)", String(p["B→A"])],
                        ["P(none)", String(p.none)], ["Threshold", String(v.threshold)],
                        ["Evidence used", ev.used], ["Text model", ev.text_model],
                        ["Sentence cue", ev.cue], ["Seconds", String(v.seconds)]]));
    if ((ev.contributions || []).length) {
      box.appendChild(el("div", { text: "Why (log-odds contributions):" }));
      box.appendChild(el("ul", {}, ev.contributions.slice(0, 5).map(function (c) {
        return el("li", { text: c.feature + " = " + c.value + " (" + (c.contribution >= 0 ? "+" : "") + c.contribution + ")" });
      })));
    }
    if ((ev.paths || []).length) {
      box.appendChild(el("div", { text: "Strongest paths:" }));
      box.appendChild(el("ul", { class: "paths" }, ev.paths.map(function (q) { return el("li", { text: q.path }); })));
    }
    (v.notes || []).forEach(function (n) { box.appendChild(el("p", { class: "muted", text: "Note: " + n })); });
  }

  $("pair-method").addEventListener("change", function () {
    var llm = $("pair-method").value === "llm";
    $("pair-ranker").disabled = !llm;
    $("pair-topk").disabled = !llm;
  });

  // The methods and rankers are the API's own lists (its OpenAPI schema), not copies kept here.
  fetch("/openapi.json").then(function (r) { return r.json(); }).then(function (spec) {
    var props = spec.components.schemas.PairRequest.properties;
    [["method", "pair-method"], ["ranker", "pair-ranker"]].forEach(function (f) {
      var schema = props[f[0]], options = [];
      (schema.anyOf || [schema]).forEach(function (s) { if (s.enum) options = options.concat(s.enum); });
      options.forEach(function (o) { $(f[1]).appendChild(el("option", { value: o, text: o })); });
    });
  }).catch(function () {});

  // -- deduce -------------------------------------------------------------------------------
  var SHOWN = ["statement", "verdict", "label", "probability", "method", "fmt", "retriever", "reply",
               "chains", "extracted", "inferred", "logprobs", "usage", "seconds", "model",
               "threshold", "evidence", "contributions"];
  $("deduce-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { context: $("deduce-context").value, statement: $("deduce-statement").value.trim() };
    if ($("deduce-method").value) body.method = $("deduce-method").value;
    busy(ev.target, true);
    var box = $("deduce-result");
    note(box, "reading the report…");
    api("POST", "/v1/deduce", body).then(function (d) {
      clear(box);
      box.appendChild(el("div", { class: "verdict " + (d.verdict ? "yes" : "no"),
        text: d.label + (d.verdict ? ": a probable cause" : ": not a probable cause") }));
      if (d.probability !== null && d.probability !== undefined) {
        var shown = "P(True) = " + d.probability.toFixed(3);
        if (d.threshold !== null && d.threshold !== undefined) shown += " (threshold " + d.threshold.toFixed(3) + ")";
        box.appendChild(el("div", { text: shown }));
        box.appendChild(bar(d.probability));
      }
      box.appendChild(kv([["Method", d.method], ["Format", d.fmt], ["Retriever", d.retriever],
                          ["Log-probs", d.logprobs && Object.keys(d.logprobs).map(function (k) {
                            return k + " " + Number(d.logprobs[k]).toFixed(3); }).join(", ")],
                          ["Reply", d.reply], ["Model", d.model],
                          ["Seconds", String(d.seconds)]]));
      if ((d.chains || []).length) {
        var t = el("table", {}, [el("tr", {}, [el("th", { text: "score" }), el("th", { text: "kind" }), el("th", { text: "chain" })])]);
        d.chains.forEach(function (c) {
          t.appendChild(el("tr", {}, [el("td", { text: (c.score || 0).toFixed(2) }), el("td", { text: c.kind }), el("td", { text: c.text })]));
        });
        box.appendChild(el("div", { text: "Retrieved causal chains:" }));
        box.appendChild(t);
      }
      if ((d.contributions || []).length) {
        var ct = el("table", { class: "contributions" }, [el("tr", {}, [el("th", { text: "evidence" }),
          el("th", { text: "value" }), el("th", { text: "log-odds" })])]);
        d.contributions.forEach(function (c) {
          ct.appendChild(el("tr", {}, [el("td", { text: c.description || c.name, title: c.name }),
            el("td", { text: Number(c.value).toFixed(3) }),
            el("td", { text: (c.contribution >= 0 ? "+" : "") + Number(c.contribution).toFixed(3) })]));
        });
        box.appendChild(el("div", { text: "Evidence that moved the verdict most:" }));
        box.appendChild(ct);
      }
      if ((d.evidence || []).length) {
        box.appendChild(el("div", { text: "The report's passages that support the statement best:" }));
        box.appendChild(el("ul", { class: "passages" }, d.evidence.map(function (e) {
          var score = e.cosine !== undefined ? " (cosine " + Number(e.cosine).toFixed(2) + ")" : "";
          return el("li", { text: (e.passage || e.text || JSON.stringify(e)) + score });
        })));
      }
      [["Chains extracted from the report", d.extracted], ["Chains inferred from the statement", d.inferred]].forEach(function (p) {
        if ((p[1] || []).length) {
          box.appendChild(el("div", { text: p[0] + ":" }));
          box.appendChild(el("ul", { class: "paths" }, p[1].map(function (x) { return el("li", { text: x }); })));
        }
      });
      // Evidence fields this page does not know yet are shown as they come.
      var extra = Object.keys(d).filter(function (k) { return SHOWN.indexOf(k) < 0; });
      if (extra.length) box.appendChild(kv(extra.map(function (k) { return [k, d[k]]; })));
    }, function (e) { note(box, describeError(e), true); })
      .then(function () { busy(ev.target, false); });
  });

  // -- story --------------------------------------------------------------------------------
  var STORY_EXAMPLES = {
    numbers: {
      story: "Gender has a direct effect on smoking and lung cancer. Smoking has a direct effect on " +
        "lung cancer. The overall probability of male gender is 40%. For those who are not male and are " +
        "nonsmokers, the probability of lung cancer is 10%. For those who are not male and are smokers, " +
        "the probability of lung cancer is 30%. For those who are male and are nonsmokers, the " +
        "probability of lung cancer is 20%. For those who are male and are smokers, the probability of " +
        "lung cancer is 60%.",
      question: "Will smoking increase the chance of lung cancer?"
    },
    independences: {
      story: "Suppose there is a closed system of 4 variables, A, B, C and D. All the statistical " +
        "relations among these 4 variables are as follows: A correlates with C. A correlates with D. " +
        "B correlates with C. B correlates with D. C correlates with D. However, A is independent of B. " +
        "A and D are independent given C. A and D are independent given B and C. B and D are " +
        "independent given C. B and D are independent given A and C.",
      question: "Does C directly cause D?"
    }
  };
  Array.prototype.forEach.call(document.querySelectorAll(".story-example"), function (b) {
    b.addEventListener("click", function () {
      var ex = STORY_EXAMPLES[b.dataset.example];
      $("story-text").value = ex.story;
      $("story-question").value = ex.question;
    });
  });

  // The graph an answer's model states (a graph story) or the class its independences fix
  // (a CPDAG: directed edges hold in every DAG of the class, undirected ones go either way).
  function storyGraph(a) {
    var m = a.model || {}, q = a.query || {};
    var names = (m.variables || []).map(function (v) { return typeof v === "string" ? v : v.name; });
    var known = new Set(names);
    var hidden = new Set((m.variables || []).filter(function (v) { return v && v.observed === false; })
      .map(function (v) { return v.name; }));
    function keep(edges) { return (edges || []).filter(function (e) { return known.has(e[0]) && known.has(e[1]); }); }
    return { names: names, hidden: hidden, cpdag: !!m.cpdag,
             directed: keep(m.cpdag ? m.cpdag.directed : m.edges),
             undirected: keep(m.cpdag ? m.cpdag.undirected : []),
             from: q.treatment || q.a, to: q.outcome || q.b };
  }

  function drawStory(a) {
    state.showing = "story";
    state.story = a;
    $("graph-back").hidden = !state.detail;
    var g = storyGraph(a);
    $("graph-title").textContent = g.cpdag ? "Equivalence class of the stated independences"
                                           : "Graph stated in the story";
    var elements = g.names.map(function (n) {
      var cls = [n === g.from ? "treatment" : "", n === g.to ? "outcome" : "",
                 g.hidden.has(n) ? "unobserved" : ""].join(" ").trim();
      return { group: "nodes", data: { id: n, label: n + (g.hidden.has(n) ? " (unobserved)" : "") }, classes: cls };
    });
    var xy = layered(g.names, g.directed.concat(g.undirected));
    var placed = g.names.every(function (n) { return xy[n] && isFinite(xy[n].x) && isFinite(xy[n].y); });
    g.directed.forEach(function (e, i) {
      var long = placed && Math.abs(xy[e[1]].rank - xy[e[0]].rank) > 1;
      elements.push({ group: "edges", data: { id: "sd" + i, source: e[0], target: e[1] }, classes: long ? "long" : "" });
    });
    g.undirected.forEach(function (e, i) {
      elements.push({ group: "edges", data: { id: "su" + i, source: e[0], target: e[1] }, classes: "undirected" });
    });
    draw(elements, placed ? { name: "preset", positions: function (n) { return xy[n.id()]; }, padding: 28 }
                          : { name: "circle", padding: 28 });
    var parts = [g.names.length + " variables, " + (g.directed.length + g.undirected.length) + " edges" +
                 (g.cpdag ? " (directed: the same in every graph with these independences; undirected: " +
                            "either way)." : " as the story states them.")];
    if (g.from && g.to) parts.push(" Blue border: " + g.from + "; green: " + g.to + ".");
    if (g.hidden.size) parts.push(" Dashed: unobserved.");
    setLegend(parts);
  }

  function rounded(v) { return String(+Number(v).toFixed(4)); }
  function assignment(given) {
    return Object.keys(given || {}).map(function (k) { return k + "=" + given[k]; }).join(", ");
  }

  // Every number (or statement) the story was read into, with the sentence it came from.
  function storyNumbers(m) {
    var rows = [];
    (m.probabilities || []).forEach(function (p) { rows.push([p.formal, rounded(p.value), p.sentence]); });
    (m.correlations || []).forEach(function (c) {
      var g = assignment(c.given);
      rows.push(["corr(" + c.a + ", " + c.b + (g ? " | " + g : "") + ")", rounded(c.value), c.sentence]);
    });
    (m.mechanisms || []).forEach(function (x) {
      var inputs = (x.inputs || []).map(function (i) { return i[0] + "=" + i[1]; }).join(" " + x.op + " ");
      rows.push([x.effect + "=" + x.effect_value + " iff " + inputs, "mechanism", x.sentence]);
    });
    (m.observations || []).forEach(function (o) { rows.push([o.variable + "=" + o.value, "observed", o.sentence]); });
    (m.statements || []).forEach(function (s) {
      rows.push([s.x + (s.independent ? " ⫫ " : " ~ ") + s.y + (s.given.length ? " | " + s.given.join(", ") : ""),
                 s.independent ? "independent" : "dependent", s.sentence]);
    });
    return rows;
  }

  function showStory(box, a) {
    clear(box);
    var refused = a.answer === null || a.answer === undefined;
    box.appendChild(el("div", { class: "verdict " + (refused ? "refused" : a.answer), id: "story-answer",
                                text: refused ? "No answer" : a.answer }));
    if (refused) box.appendChild(el("p", { class: "reason", text: a.reason || "" }));
    box.appendChild(kv([["Value", a.value === null || a.value === undefined ? null : rounded(a.value)],
                        ["Estimand", a.estimand], ["Question read as", a.query && a.query.kind || a.query && a.query.relation],
                        ["Route", (a.route || []).join(" · ")], ["Seconds", a.seconds === null ? null : rounded(a.seconds)]]));
    if ((a.derivation || []).length) {
      box.appendChild(el("div", { text: "Derivation:" }));
      box.appendChild(el("ol", { class: "derivation" }, a.derivation.map(function (d) { return el("li", { text: d }); })));
    }
    var rows = storyNumbers(a.model || {});
    if (rows.length) {
      var t = el("table", { class: "numbers" }, [el("tr", {}, [el("th", { text: "read as" }),
        el("th", { text: "value" }), el("th", { text: "from the sentence" })])]);
      rows.forEach(function (r) {
        t.appendChild(el("tr", {}, [el("td", { text: r[0] }), el("td", { text: r[1] }), el("td", { text: r[2] })]));
      });
      box.appendChild(el("div", { text: (a.model.statements ? "Statements" : "Numbers") + " read from the story:" }));
      box.appendChild(t);
    }
    if ((a.model && a.model.variables || []).length) drawStory(a);
  }

  $("story-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var body = { story: $("story-text").value, question: $("story-question").value.trim() };
    if ($("story-llm").checked) body.use_llm = true;
    busy(ev.target, true);
    var box = $("story-result");
    note(box, "reading the story…");
    api("POST", "/v1/stated", body).then(function (a) { showStory(box, a); },
                                         function (e) { note(box, describeError(e), true); })
      .then(function () { busy(ev.target, false); });
  });

  // -- start --------------------------------------------------------------------------------
  pollStatus();
  loadModels();
})();
