// jprewrite's flame-graph page: the profile's calling contexts drawn with d3-flame-graph.
// The data (written by jprewrite.profile.flamegraph) is a flat node table in preorder:
//   names[i], jvm[i], kinds[i]: frame i's short name, JVM name, kind ("" app, "jdk", ...)
//   nodes: [parent, frame, incl_0, self_0, incl_1, self_1, ...] per context, one pair per metric
(function () {
  "use strict";
  const data = JSON.parse(document.getElementById("profile-data").textContent);
  const metrics = data.metrics;
  const W = 2 + 2 * metrics.length;
  const nodes = data.nodes;
  const count = nodes.length / W;
  let metric = metrics.indexOf(data.metric);
  let sortBy = "self";
  const fmt = (v) => v.toLocaleString("en-US");
  const incl = (i) => nodes[i * W + 2 + 2 * metric];
  const self = (i) => nodes[i * W + 3 + 2 * metric];
  const parent = (i) => nodes[i * W];
  const frame = (i) => nodes[i * W + 1];

  function hierarchy() {
    // one object per context with a non-zero value of the current metric
    const objs = new Array(count);
    for (let i = 0; i < count; i++) {
      const v = incl(i);
      if (i > 0 && (v === 0 || objs[parent(i)] === undefined)) continue;
      const o = { name: data.names[frame(i)], value: v, k: i, children: [] };
      if (data.kinds[frame(i)]) o.kind = data.kinds[frame(i)];
      objs[i] = o;
      if (i > 0) objs[parent(i)].children.push(o);
    }
    return objs[0];
  }

  const chartDiv = document.getElementById("chart");
  const details = document.getElementById("details");
  const chart = flamegraph.default()
    .width(Math.max(400, chartDiv.clientWidth))
    .cellHeight(18)
    .transitionDuration(300)
    .minFrameSize(1)
    .sort(false)
    .setDetailsElement(details)
    .setSearchHandler((results, sum, total) => {
      const pct = total ? (100 * sum / total).toFixed(2) : "0";
      document.getElementById("found").textContent = results.length
        ? `${results.length} frames match: ${fmt(sum)} of ${fmt(total)} ${metrics[metric]} (${pct}%)` : "no match";
    })
    .setSearchMatch((d, term) => !!term && (d.data.name || "").toLowerCase().includes(term.toLowerCase()))
    .setColorMapper((d, original) => d.highlight ? original
      : d.data.kind === "jdk" ? "#9ec3e6" : d.data.kind ? "#c8c8c8" : original)
    .setLabelHandler((d) => {
      const i = d.data.k;
      const jvm = data.jvm[frame(i)];
      const pct = (100 * d.value / incl(0)).toFixed(2);
      return `${jvm}: ${fmt(d.value)} ${metrics[metric]} inclusive (${pct}%), ${fmt(self(i))} self`;
    });

  function byK() {
    const map = new Map();
    d3.select(chartDiv).datum().each((n) => map.set(n.data.k, n));
    return map;
  }

  function pathOf(i) {
    const out = [];
    for (let j = i; j > 0; j = parent(j)) out.push(data.names[frame(j)]);
    return out.reverse().join(" \u2192 ");
  }

  function table() {
    const value = sortBy === "self" ? self : incl;
    const rows = [];
    for (let i = 1; i < count; i++) if (value(i) > 0) rows.push(i);
    rows.sort((a, b) => value(b) - value(a));
    const body = document.getElementById("hot");
    body.textContent = "";
    document.getElementById("col-value").textContent = sortBy;
    for (const i of rows.slice(0, data.table)) {
      const tr = document.createElement("tr");
      tr.title = pathOf(i);
      const pct = (100 * value(i) / (incl(0) || 1)).toFixed(2);
      const caller = parent(i) > 0 ? data.names[frame(parent(i))] + " \u203a " : "";
      for (const [text, cls] of [[fmt(value(i)), ""], [pct, ""], [caller + data.names[frame(i)], "name"]]) {
        const td = document.createElement("td");
        td.textContent = text;
        if (cls) td.className = cls;
        tr.appendChild(td);
      }
      tr.addEventListener("click", () => {
        const n = byK().get(i);
        if (n) chart.zoomTo(n);
      });
      body.appendChild(tr);
    }
  }

  function draw() {
    d3.select(chartDiv).datum(hierarchy()).call(chart);
    document.getElementById("total").textContent = `total ${fmt(incl(0))} ${metrics[metric]}`;
    table();
  }

  const mbox = document.getElementById("metrics");
  metrics.forEach((m, k) => {
    const b = document.createElement("button");
    b.textContent = m;
    b.dataset.metric = m;
    if (k === metric) b.className = "on";
    b.addEventListener("click", () => {
      metric = k;
      mbox.querySelectorAll("button").forEach((x) => x.classList.toggle("on", x === b));
      chart.update(hierarchy());
      const term = document.getElementById("search").value;
      if (term) chart.search(term);
      document.getElementById("total").textContent = `total ${fmt(incl(0))} ${metrics[metric]}`;
      table();
    });
    mbox.appendChild(b);
  });
  document.querySelectorAll("#sorts button").forEach((b) => b.addEventListener("click", () => {
    sortBy = b.dataset.sort;
    document.querySelectorAll("#sorts button").forEach((x) => x.classList.toggle("on", x === b));
    table();
  }));
  const search = document.getElementById("search");
  search.addEventListener("input", () => {
    if (search.value) chart.search(search.value);
    else { chart.clear(); document.getElementById("found").textContent = ""; }
  });
  search.addEventListener("keydown", (e) => { if (e.key === "Enter") chart.search(search.value); });
  document.getElementById("reset").addEventListener("click", () => chart.resetZoom());
  document.getElementById("clear").addEventListener("click", () => {
    search.value = "";
    chart.clear();
    document.getElementById("found").textContent = "";
  });
  document.getElementById("note").textContent = data.note;
  draw();
  window.jprewriteFlamegraph = { chart: chart, data: data };
})();
