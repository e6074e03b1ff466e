// poplar-report's page: draws the embedded profile data (see report/src/view.rs).
// Per-tile charts bin tiles to at most one bar per pixel and draw each bin's
// fullest tile, so 1,472 tiles or a million vertices cost the same to draw.
"use strict";
(function () {
  const D = JSON.parse(document.getElementById("profile-data").textContent);
  const $ = (id) => document.getElementById(id);
  const T = D.target.tiles;
  const X = D.exec;
  const COLORS = ["#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#edc948", "#76b7b2", "#9c755f", "#ff9da7", "#bab0ac", "#e15759"];
  const LANES = ["Compute", "Exchange", "Sync", "Host"];
  const LANE_COLORS = ["#4e79a7", "#f28e2b", "#9c9c9c", "#59a14f"];
  const fmt = (n) => Math.round(n).toLocaleString("en-US");
  const pct = (a, b) => (b > 0 ? ((100 * a) / b).toFixed(1) + "%" : "-");
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const us = (cycles) => (cycles / D.target.clock_mhz).toFixed(2) + " µs";
  // A run that stopped before its end: what the execution figures cover.
  const PARTIAL = X && X.partial ? "The run stopped before its end" + (X.stopped_by ? " (" + X.stopped_by + ")" : "") + "; the execution figures cover it up to there." : "";

  function table(caption, head, rows) {
    let h = "<table><caption>" + esc(caption) + "</caption><tr>";
    for (const c of head) h += "<th>" + esc(c) + "</th>";
    h += "</tr>";
    for (const r of rows) {
      h += "<tr>";
      for (const c of r) {
        if (typeof c === "number") h += '<td class="n">' + fmt(c) + "</td>";
        else if (c && c.html !== undefined) h += "<td>" + c.html + "</td>";
        else h += "<td>" + esc(c) + "</td>";
      }
      h += "</tr>";
    }
    return h + "</table>";
  }
  const bar = (v, max) => ({ html: '<div class="bar" style="width:' + (max > 0 ? (160 * v) / max : 0).toFixed(1) + 'px"></div>' });

  // A canvas sized to its box and the screen's pixel ratio.
  function surface(c) {
    const dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth || 800;
    const h = +c.dataset.h;
    c.style.height = h + "px";
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
    const ctx = c.getContext("2d");
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.font = "11px system-ui, sans-serif";
    ctx.clearRect(0, 0, w, h);
    return { ctx, w, h };
  }

  const tip = $("tooltip");
  function showTip(e, text) {
    tip.textContent = text;
    tip.hidden = false;
    tip.style.left = Math.min(e.clientX + 14, window.innerWidth - 320) + "px";
    tip.style.top = e.clientY + 14 + "px";
  }
  const hideTip = () => (tip.hidden = true);

  function axisY(ctx, x, y0, y1, max, unit) {
    ctx.fillStyle = "#666";
    ctx.strokeStyle = "#eee";
    ctx.textAlign = "right";
    for (let i = 0; i <= 4; i++) {
      const y = y0 - ((y0 - y1) * i) / 4;
      ctx.fillText(fmt((max * i) / 4) + unit, x - 4, y + 3);
      ctx.beginPath();
      ctx.moveTo(x, y);
      ctx.lineTo(ctx.canvas.clientWidth, y);
      ctx.stroke();
    }
    ctx.textAlign = "left";
  }

  // Tile bins: at most one per pixel of `width`.
  function bins(width) {
    const n = Math.max(1, Math.min(T, Math.floor(width)));
    const lo = new Int32Array(n + 1);
    for (let i = 0; i <= n; i++) lo[i] = Math.floor((i * T) / n);
    return { n, lo };
  }
  // The tile of bin `b` where `key` is largest.
  function fullest(b, key) {
    let best = b.lo0, bv = -1;
    for (let t = b.lo0; t < b.hi; t++) if (key[t] > bv) (bv = key[t]), (best = t);
    return best;
  }

  const charts = [];
  // A per-tile bar chart: each bin draws `draw(ctx, x, w, tile, y)`, hover
  // and click go to the bin's representative tile.
  function tileChart(canvas, opts) {
    const chart = { canvas, draw: null };
    let geom = null;
    chart.draw = function () {
      const { ctx, w, h } = surface(canvas);
      const left = 64, top = 10, bottom = h - 22, pw = w - left - 8;
      const bn = bins(pw);
      const reps = new Int32Array(bn.n);
      const max = opts.max();
      axisY(ctx, left, bottom, top, max, opts.unit || "");
      const bw = pw / bn.n;
      for (let i = 0; i < bn.n; i++) {
        const b = { lo0: bn.lo[i], hi: bn.lo[i + 1] };
        const t = fullest(b, opts.key);
        reps[i] = t;
        opts.bar(ctx, left + i * bw, Math.max(bw - (bw > 3 ? 1 : 0), 0.6), t, (v) => bottom - ((bottom - top) * v) / (max || 1), b);
      }
      ctx.fillStyle = "#666";
      ctx.fillText("tile 0", left, h - 6);
      ctx.textAlign = "right";
      ctx.fillText("tile " + (T - 1) + (bn.n < T ? "  (" + bn.n + " bins of ~" + (T / bn.n).toFixed(1) + " tiles; each bar is its fullest tile)" : ""), w - 8, h - 6);
      ctx.textAlign = "left";
      if (opts.after) opts.after(ctx, left, pw, top, bottom, max);
      geom = { left, bw, reps, bn };
    };
    const at = (e) => {
      if (!geom) return null;
      const r = canvas.getBoundingClientRect();
      const i = Math.floor((e.clientX - r.left - geom.left) / geom.bw);
      return i >= 0 && i < geom.bn.n ? { i, tile: geom.reps[i], lo: geom.bn.lo[i], hi: geom.bn.lo[i + 1] - 1 } : null;
    };
    canvas.addEventListener("mousemove", (e) => {
      const p = at(e);
      if (!p) return hideTip();
      showTip(e, (p.lo === p.hi ? "tile " + p.lo : "tiles " + p.lo + "–" + p.hi + ", fullest: tile " + p.tile) + "\n" + opts.tip(p.tile));
    });
    canvas.addEventListener("mouseleave", hideTip);
    canvas.addEventListener("click", (e) => {
      const p = at(e);
      if (p) selectTile(p.tile, true);
    });
    charts.push(chart);
    return chart;
  }

  // ---- Summary ----
  function summary() {
    const t = D.target;
    const used = D.total.reduce((a, b) => a + b, 0);
    const maxTile = D.total.reduce((m, v, i) => (v > D.total[m] ? i : m), 0);
    const oom = D.overflow.filter((v) => v > 0).length;
    let h = table("Target", ["", ""], [
      ["Target", t.name + " (" + t.kind + ")"], ["IPUs", t.ipus], ["Tiles", t.tiles],
      ["Memory per tile", fmt(t.bytes_per_tile) + " bytes"], ["Clock", t.clock_mhz + " MHz"], ["Worker contexts", t.workers],
    ]);
    h += table("Graph", ["", ""], [
      ["Vertices", D.counts.vertices], ["Edges", D.counts.edges], ["Variables", D.counts.variables],
      ["Compute sets", D.counts.compute_sets], ["Programs", D.counts.programs],
    ]);
    const mem = [
      ["Total (including gaps)", fmt(used) + " bytes (" + pct(used, t.bytes_per_tile * T) + ")"],
      ["Fullest tile", "tile " + maxTile + ": " + fmt(D.total[maxTile] || 0) + " bytes (" + pct(D.total[maxTile] || 0, t.bytes_per_tile) + ")"],
      ["Tiles over their memory", { html: oom ? '<span class="warn">' + oom + "</span>" : "0" }],
    ];
    D.categories.forEach((c, i) => mem.push([c, fmt(D.mem_by_cat[i].reduce((a, b) => a + b, 0)) + " bytes"]));
    for (const o of D.outside) mem.push([o[0] + " (" + o[2] + ")", fmt(o[1]) + " bytes"]);
    h += table("Memory", ["", ""], mem);
    if (X) {
      const rows = [];
      if (X.partial) rows.push(["Partial run", { html: '<span class="warn">' + esc(PARTIAL) + "</span>" }]);
      rows.push(["Total cycles", fmt(X.cycles) + " (" + us(X.cycles) + ")"]);
      const wall = [0, 0, 0, 0];
      for (const st of X.steps) wall[st[0]] += st[2];
      LANES.forEach((n, i) => rows.push([n + " steps (elapsed)", fmt(wall[i]) + " (" + pct(wall[i], X.cycles) + " of total)"]));
      const other = X.cycles - wall.reduce((a, b) => a + b, 0);
      if (other > 0) rows.push([X.steps_not_recorded ? "Other (control, and steps not recorded)" : "Other (control)", fmt(other) + " (" + pct(other, X.cycles) + " of total)"]);
      for (const [n, v] of X.tile_cycles) rows.push(["Tile average " + n, fmt(v / T) + " (" + pct(v / T, X.cycles) + " of total)"]);
      h += table("Execution", ["", ""], rows);
    } else {
      h += '<p class="note">No execution profile: give one (poplar-run --profile on the sim device) for the timeline and cycles.</p>';
    }
    $("summary-body").innerHTML = h;
  }

  // ---- Memory ----
  function memory() {
    const limit = D.target.bytes_per_tile;
    const maxUsed = Math.max(0, ...D.total);
    const oomTiles = [];
    D.overflow.forEach((v, i) => v > 0 && oomTiles.length < 20 && oomTiles.push(i));
    const oomCount = D.overflow.filter((v) => v > 0).length;
    $("memory-note").innerHTML = oomCount
      ? '<span class="warn">' + oomCount + " tile(s) over the " + fmt(limit) + "-byte limit</span>: " + oomTiles.join(", ") + (oomCount > 20 ? ", …" : "") + " (marked red)"
      : "Every tile fits in its " + fmt(limit) + " bytes.";
    $("memory-legend").innerHTML = D.categories.map((c, i) => '<span><i style="background:' + COLORS[i % COLORS.length] + '"></i>' + esc(c) + "</span>").join("") + '<span><i style="background:#e15759"></i>limit / out of memory</span>';
    const box = $("memory-limit-scale");
    let chartMax = 1;
    box.checked = maxUsed > limit / 4;
    box.addEventListener("change", () => chart.draw());
    const chart = tileChart($("memory-chart"), {
      key: D.total,
      max: () => (chartMax = box.checked ? Math.max(limit, maxUsed) * 1.05 : Math.max(maxUsed, 1) * 1.1),
      bar(ctx, x, w, t, y) {
        if (D.overflow[t] > 0) {
          ctx.fillStyle = "rgba(225, 87, 89, 0.22)";
          ctx.fillRect(x - 1, y(chartMax), Math.max(w, 3) + 2, y(0) - y(chartMax));
        }
        let acc = 0;
        D.categories.forEach((_, c) => {
          const v = D.mem_by_cat[c][t];
          if (!v) return;
          ctx.fillStyle = COLORS[c % COLORS.length];
          ctx.fillRect(x, y(acc + v), w, y(acc) - y(acc + v));
          acc += v;
        });
        if (D.overflow[t] > 0) {
          ctx.fillStyle = "#e15759";
          ctx.fillRect(x, Math.max(y(D.total[t]) - 6, 0), Math.max(w, 2), 4);
        }
      },
      after(ctx, left, pw, top, bottom, max) {
        ctx.strokeStyle = "#e15759";
        ctx.fillStyle = "#e15759";
        if (limit <= max) {
          const y = bottom - ((bottom - top) * limit) / max;
          ctx.setLineDash([6, 4]);
          ctx.beginPath();
          ctx.moveTo(left, y);
          ctx.lineTo(left + pw, y);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.fillText("limit " + fmt(limit) + " bytes", left + 4, y - 3);
        } else {
          ctx.fillText("limit " + fmt(limit) + " bytes: above this scale", left + 4, top + 10);
        }
      },
      tip(t) {
        let s = "total " + fmt(D.total[t]) + " bytes (" + pct(D.total[t], limit) + ")";
        D.categories.forEach((c, i) => D.mem_by_cat[i][t] && (s += "\n  " + c + ": " + fmt(D.mem_by_cat[i][t])));
        if (D.overflow[t]) s += "\n  OVER by " + fmt(D.overflow[t]);
        return s;
      },
    });
  }

  // ---- Tile drill-down ----
  function selectTile(t, scroll) {
    t = Math.max(0, Math.min(T - 1, t | 0));
    $("tile-input").value = t;
    const limit = D.target.bytes_per_tile;
    const rows = D.categories.map((c, i) => [c, D.mem_by_cat[i][t]]);
    rows.push(["total (including gaps)", D.total[t]]);
    rows.push(["free", Math.max(0, limit - D.total[t])]);
    if (D.overflow[t]) rows.push([{ html: '<span class="warn">over the limit by</span>' }, D.overflow[t]]);
    let h = table("Memory of tile " + t, ["category", "bytes"], rows);
    if (D.vertices.length) h += table("Vertices", ["", ""], [["vertices on the tile", D.vertices[t]], ["vertex state bytes", D.mem_by_cat[D.categories.indexOf("vertexInstanceState")]?.[t] ?? 0]]);
    const vars = [];
    for (const v of D.variables) {
      for (let k = 0; k < v.tiles.length; k += 2) {
        if (v.tiles[k] === t) { vars.push([v.name, v.constant ? "constant" : "variable", v.tiles[k + 1], v.bytes]); break; }
        if (v.tiles[k] > t) break;
      }
    }
    vars.sort((a, b) => b[2] - a[2]);
    h += table("Variables on tile " + t + (vars.length > 200 ? " (largest 200 of " + vars.length + ")" : ""), ["name", "kind", "bytes here", "bytes in all"], vars.slice(0, 200));
    if (D.sent_by_exchange.length) {
      const xs = [];
      D.exchange_names.forEach((n, i) => {
        const s = D.sent_by_exchange[i][t], r = D.received_by_exchange[i][t];
        if (s || r) xs.push([n, s, r]);
      });
      xs.sort((a, b) => b[1] + b[2] - a[1] - a[2]);
      h += table("Exchanges of tile " + t + (xs.length > 50 ? " (busiest 50 of " + xs.length + ")" : "") + "; receive buffers live in the 'message' arena: " + fmt(D.mem_by_cat[D.categories.indexOf("message")]?.[t] ?? 0) + " bytes", ["exchange", "bytes sent", "bytes received"], xs.slice(0, 50));
    } else {
      h += table("Exchange totals of tile " + t, ["", ""], [["bytes sent", D.sent[t]], ["bytes received", D.received[t]]]);
    }
    if (X && X.cs_by_tile.length) {
      const cs = [];
      X.cs_names.forEach((n, i) => X.cs_by_tile[i][t] && cs.push([n, X.cs_by_tile[i][t]]));
      cs.sort((a, b) => b[1] - a[1]);
      h += table("Compute cycles of tile " + t + (cs.length > 50 ? " (busiest 50 of " + cs.length + ")" : ""), ["compute set", "cycles (all runs)"], cs.slice(0, 50));
    }
    if (D.vertex_types.length) h += table("Vertex types (code is shared by all tiles)", ["type", "state bytes", "code bytes"], D.vertex_types.map((v) => [v[0], v[1], v[2]]));
    $("tile-body").innerHTML = h;
    if (scroll) $("tile").scrollIntoView({ behavior: "smooth" });
  }

  // ---- Liveness ----
  function liveness() {
    const sum = (name) => { const i = D.categories.indexOf(name); return i < 0 ? 0 : D.mem_by_cat[i].reduce((a, b) => a + b, 0); };
    const always = sum("variable") + sum("constant") + sum("vertexInstanceState") + sum("vectorListDescriptor");
    $("liveness-body").innerHTML =
      '<p class="note">The graph profile carries no liveness intervals: this compiler lays out every variable and constant at a fixed address for the whole program, so all of them are always live and memory does not peak at any program step. Only the exchange receive buffers ("message") are reused between compute sets, and the worker stacks between vertices.</p>' +
      table("Memory by lifetime", ["", "bytes"], [["always live (variables, constants, vertex state, descriptors)", always], ["reused per compute set (message arena)", sum("message")], ["reused per vertex (stacks)", sum("stack")]]);
  }

  // ---- Timeline ----
  function timeline() {
    if (!X) {
      $("timeline-body").innerHTML = '<p class="note">No execution profile.</p>';
      $("timeline-chart").remove();
      return;
    }
    const steps = X.steps;
    $("timeline-body").innerHTML = (X.partial ? '<p class="warn">' + esc(PARTIAL) + "</p>" : "") + '<p class="note">' + fmt(steps.length) + " steps" + (X.steps_not_recorded ? " (" + fmt(X.steps_not_recorded) + " more not recorded)" : "") + ". Wheel: zoom; drag: pan; double-click: reset. The lower band is each step's tile balance (share of tiles' time busy).</p>";
    const canvas = $("timeline-chart");
    const end = steps.length ? Math.max(...steps.map((s) => s[1] + s[2])) : 1;
    let v0 = 0, v1 = Math.max(end, 1);
    const left = 70;
    const chart = { canvas };
    let laneH = 34, top = 6;
    chart.draw = function () {
      const { ctx, w, h } = surface(canvas);
      const pw = w - left - 8, span = v1 - v0;
      const balTop = top + LANES.length * laneH + 6, balH = h - balTop - 22;
      ctx.fillStyle = "#666";
      LANES.forEach((n, i) => ctx.fillText(n, 4, top + i * laneH + laneH / 2 + 4));
      ctx.fillText("balance", 4, balTop + balH / 2 + 4);
      ctx.fillStyle = "#f4f4f4";
      ctx.fillRect(left, balTop, pw, balH);
      const lastPx = new Float64Array(4).fill(-1);
      for (const s of steps) {
        const a = s[1], b = s[1] + s[2];
        if (b < v0 || a > v1) continue;
        const x0 = left + ((a - v0) / span) * pw, x1 = left + ((b - v0) / span) * pw;
        const x = Math.max(x0, left), wd = Math.max(Math.min(x1, left + pw) - x, 0.75);
        if (x + wd <= lastPx[s[0]] + 0.25) continue;
        lastPx[s[0]] = x + wd;
        ctx.fillStyle = LANE_COLORS[s[0]];
        ctx.fillRect(x, top + s[0] * laneH + 3, wd, laneH - 6);
        if (s[0] < 2) {
          const bh = (balH * s[4]) / 1000;
          ctx.fillStyle = LANE_COLORS[s[0]];
          ctx.fillRect(x, balTop + balH - bh, wd, bh);
        }
      }
      ctx.fillStyle = "#666";
      for (let i = 0; i <= 5; i++) {
        const c = v0 + (span * i) / 5, x = left + (pw * i) / 5;
        ctx.textAlign = i === 0 ? "left" : i === 5 ? "right" : "center";
        ctx.fillText(fmt(c) + " cy (" + us(c) + ")", x, h - 6);
      }
      ctx.textAlign = "left";
      chart.geom = { pw, top };
    };
    const cycleAt = (e) => {
      const r = canvas.getBoundingClientRect();
      return v0 + ((e.clientX - r.left - left) / chart.geom.pw) * (v1 - v0);
    };
    let drag = null;
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const c = cycleAt(e), f = e.deltaY < 0 ? 0.8 : 1.25;
      v0 = Math.max(0, c - (c - v0) * f);
      v1 = Math.min(Math.max(end, 1), c + (v1 - c) * f);
      if (v1 - v0 < 4) v1 = v0 + 4;
      chart.draw();
    }, { passive: false });
    canvas.addEventListener("mousedown", (e) => (drag = { x: e.clientX, v0, v1 }));
    window.addEventListener("mouseup", () => (drag = null));
    canvas.addEventListener("dblclick", () => { v0 = 0; v1 = Math.max(end, 1); chart.draw(); });
    canvas.addEventListener("mousemove", (e) => {
      if (drag) {
        const d = ((e.clientX - drag.x) / chart.geom.pw) * (drag.v1 - drag.v0);
        const span = drag.v1 - drag.v0;
        v0 = Math.max(0, Math.min(drag.v0 - d, Math.max(end, 1) - span));
        v1 = v0 + span;
        chart.draw();
        return;
      }
      const r = canvas.getBoundingClientRect();
      const lane = Math.floor((e.clientY - r.top - top) / laneH);
      const c = cycleAt(e), tol = ((v1 - v0) / chart.geom.pw) * 2;
      let hit = null;
      let lo = 0, hi = steps.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (steps[m][1] + steps[m][2] < c - tol) lo = m + 1; else hi = m; }
      for (let i = lo; i < steps.length && steps[i][1] <= c + tol; i++) if (lane < 0 || lane > 3 || steps[i][0] === lane) { hit = steps[i]; if (steps[i][0] === lane) break; }
      if (!hit) return hideTip();
      const text = LANES[hit[0]] + ": " + X.step_names[hit[5]] + "\ncycles " + fmt(hit[1]) + "–" + fmt(hit[1] + hit[2]) + " (" + fmt(hit[2]) + ", " + us(hit[2]) + ")" + (hit[0] < 2 ? "\nactive tiles " + fmt(hit[3]) + ", tile balance " + (hit[4] / 10).toFixed(1) + "%" : "");
      showTip(e, text);
      $("step-info").textContent = text.replace(/\n/g, "; ");
    });
    canvas.addEventListener("mouseleave", hideTip);
    charts.push(chart);
  }

  // ---- Cycles ----
  function cycles() {
    if (!X) {
      $("cycles-body").innerHTML = '<p class="note">No execution profile.</p>';
      $("compute-chart").previousElementSibling.remove();
      $("compute-chart").remove();
      return;
    }
    const csMax = X.compute_sets.length ? X.compute_sets[0][2] : 0;
    const vtMax = X.vertex_types.length ? X.vertex_types[0][2] : 0;
    let h = table("Cycles by compute set" + (X.compute_sets.length > 100 ? " (top 100)" : ""), ["compute set", "runs", "cycles", ""], X.compute_sets.slice(0, 100).map((c) => [c[0], c[1], c[2], bar(c[2], csMax)]));
    h += table("Cycles by vertex type (summed over tiles)", ["vertex type", "instances run", "cycles", ""], X.vertex_types.slice(0, 100).map((v) => [v[0], v[1], v[2], bar(v[2], vtMax)]));
    $("cycles-body").innerHTML = h;
    const maxC = Math.max(1, ...X.compute_by_tile);
    tileChart($("compute-chart"), {
      key: X.compute_by_tile,
      max: () => maxC * 1.1,
      bar(ctx, x, w, t, y) {
        ctx.fillStyle = COLORS[0];
        ctx.fillRect(x, y(X.compute_by_tile[t]), w, y(0) - y(X.compute_by_tile[t]));
      },
      tip: (t) => "compute cycles " + fmt(X.compute_by_tile[t]) + " (" + pct(X.compute_by_tile[t], maxC) + " of the busiest tile)",
    });
  }

  // ---- Exchange ----
  function exchange() {
    const both = D.sent.map((s, i) => Math.max(s, D.received[i]));
    const max = Math.max(1, ...both);
    $("exchange-legend").innerHTML = '<span><i style="background:' + COLORS[1] + '"></i>sent</span><span><i style="background:' + COLORS[0] + '"></i>received</span>';
    tileChart($("exchange-chart"), {
      key: both,
      max: () => max * 1.1,
      bar(ctx, x, w, t, y) {
        const half = w / 2;
        ctx.fillStyle = COLORS[1];
        ctx.fillRect(x, y(D.sent[t]), Math.max(half, 0.5), y(0) - y(D.sent[t]));
        ctx.fillStyle = COLORS[0];
        ctx.fillRect(x + half, y(D.received[t]), Math.max(half, 0.5), y(0) - y(D.received[t]));
      },
      tip: (t) => "sent " + fmt(D.sent[t]) + " bytes\nreceived " + fmt(D.received[t]) + " bytes",
    });
    const rows = D.exchange_names.map((n, i) => {
      if (!D.sent_by_exchange.length) return [n, "-", "-"];
      const s = D.sent_by_exchange[i];
      let total = 0, top = 0;
      for (const v of s) (total += v), (top = Math.max(top, v));
      return [n, total, top];
    });
    $("exchange-body").innerHTML = table("Exchanges (" + rows.length + ")", ["exchange", "bytes sent", "most by one tile"], rows.slice(0, 200));
  }

  function variables() {
    const rows = D.variables.slice(0, 200).map((v) => [v.name, v.constant ? "constant" : "variable", v.bytes, v.tiles.length / 2]);
    let note = D.variables_left_out ? " (" + D.variables_left_out + " smaller ones not listed)" : "";
    $("variables-body").innerHTML = table("Variables by size" + (D.variables.length > 200 ? ", largest 200 of " + D.variables.length : "") + note, ["name", "kind", "bytes", "tiles"], rows);
  }

  // A chart is blank when no pixel has colour: axes and grid are grey.
  function blank(c) {
    const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
    for (let i = 0; i < d.length; i += 4) {
      if (d[i + 3] > 128 && (Math.abs(d[i] - d[i + 1]) > 24 || Math.abs(d[i + 1] - d[i + 2]) > 24)) return false;
    }
    return true;
  }

  summary();
  memory();
  selectTile(D.total.reduce((m, v, i) => (v > D.total[m] ? i : m), 0), false);
  $("tile-input").addEventListener("change", (e) => selectTile(+e.target.value, false));
  liveness();
  timeline();
  cycles();
  exchange();
  variables();
  for (const c of charts) c.draw();
  let pending = 0;
  window.addEventListener("resize", () => {
    clearTimeout(pending);
    pending = setTimeout(() => charts.forEach((c) => c.draw()), 100);
  });
  const ms = performance.now();
  const empty = charts.filter((c) => blank(c.canvas)).map((c) => c.canvas.id);
  const st = $("status");
  st.dataset.status = empty.length ? "blank" : "ok";
  st.dataset.ms = ms.toFixed(0);
  st.dataset.charts = charts.length;
  st.dataset.blank = empty.join(",");
  st.textContent = "drawn " + charts.length + " charts in " + ms.toFixed(0) + " ms" + (empty.length ? "; blank: " + empty.join(", ") : "");
})();
