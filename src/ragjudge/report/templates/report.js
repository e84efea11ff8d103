// The report's only script: sorting and filtering the samples table, showing one
// sample's details, and sorting and filtering the viewer's list of runs. It never builds markup from data: a sample's details are fragments
// that the report's templates rendered (and escaped) when the report was written,
// packed with gzip and unpacked here by the browser's own DecompressionStream.
// Sorting a table by the column of header ``th``: ``keyOf(row, numeric)`` gives a row's
// key (text, or a number; null when the row has none: such rows stay last in both
// directions); ties keep their order. A second click on a header reverses the order.
function sortRows(headers, rows, tbody, th, keyOf) {
  "use strict";
  const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });
  const descending = th.getAttribute("aria-sort") === "ascending";
  const numeric = th.dataset.sort === "num";
  headers.forEach((h) => h.dataset.sort && h.setAttribute("aria-sort", "none"));
  th.setAttribute("aria-sort", descending ? "descending" : "ascending");
  const keyed = rows.map((row, i) => [keyOf(row, numeric), i, row]);
  keyed.sort((a, b) => {
    if (a[0] === null || b[0] === null) {
      return a[0] === b[0] ? a[1] - b[1] : a[0] === null ? 1 : -1;
    }
    const order = numeric ? a[0] - b[0] : collator.compare(a[0], b[0]);
    return (descending ? -order : order) || a[1] - b[1];
  });
  keyed.forEach((k) => tbody.appendChild(k[2]));
}

(function () {
  "use strict";
  const byId = (id) => document.getElementById(id);
  const table = byId("samples-table");
  if (!table) {
    return;
  }
  const tbody = table.tBodies[0];
  const rows = Array.from(tbody.rows);
  const headers = Array.from(table.tHead.rows[0].cells);
  const firstMetric = headers.findIndex((h) => h.dataset.sort === "num");
  const rowOf = new Map(rows.map((row) => [row.dataset.i, row]));
  const indexOfId = new Map(rows.map((row) => [row.cells[0].textContent.trim(), row.dataset.i]));

  // sorting -----------------------------------------------------------------
  function sortKey(row, col, numeric) {
    const cell = row.cells[col];
    if (!numeric) {
      return cell.textContent.trim();
    }
    const value = cell.dataset.v;
    return value === undefined ? null : parseFloat(value);
  }

  function sortBy(col, th) {
    sortRows(headers, rows, tbody, th, (row, numeric) => sortKey(row, col, numeric));
  }

  headers.forEach((th, col) => {
    if (!th.dataset.sort) {
      return;
    }
    th.tabIndex = 0;
    th.addEventListener("click", () => sortBy(col, th));
    th.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        sortBy(col, th);
      }
    });
  });

  // filtering ---------------------------------------------------------------
  const text = byId("f-text");
  const group = byId("f-group");
  const metric = byId("f-metric");
  const low = byId("f-min");
  const high = byId("f-max");
  const errors = byId("f-errors");
  const count = byId("f-count");

  function number(input) {
    return input.value.trim() === "" ? null : parseFloat(input.value);
  }

  function keeps(row, words, wanted, col, lo, hi) {
    if (words.length && !words.every((w) => row.dataset.text.includes(w))) {
      return false;
    }
    if (wanted && row.dataset.g !== wanted) {
      return false;
    }
    if (col < 0) {
      return !errors.checked || row.dataset.err === "1";
    }
    const cell = row.cells[col];
    if (errors.checked && !(cell.classList.contains("error") || cell.classList.contains("partial"))) {
      return false;
    }
    if (lo === null && hi === null) {
      return true;
    }
    if (cell.dataset.v === undefined) {
      return false;
    }
    const value = parseFloat(cell.dataset.v);
    return (lo === null || value >= lo) && (hi === null || value <= hi);
  }

  function applyFilters() {
    const words = text.value.normalize("NFKC").toLowerCase().split(/\s+/).filter(Boolean);
    const wanted = group ? group.value : "";
    const col = metric.value === "" ? -1 : firstMetric + parseInt(metric.value, 10);
    const lo = number(low);
    const hi = number(high);
    let shown = 0;
    rows.forEach((row) => {
      const keep = keeps(row, words, wanted, col, lo, hi);
      row.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " samples";
  }

  [text, group, metric, low, high, errors].forEach((input) => {
    if (input) {
      input.addEventListener("input", applyFilters);
      input.addEventListener("change", applyFilters);
    }
  });
  byId("filters").addEventListener("submit", (event) => event.preventDefault());

  // one sample's details ----------------------------------------------------
  const panel = byId("drill");
  const body = byId("drill-body");
  const title = byId("drill-title");
  let fragments = null;
  let current = null;

  async function unpack() {
    if (fragments === null) {
      if (typeof DecompressionStream === "undefined") {
        throw new Error("this browser cannot unpack the sample details (no DecompressionStream)");
      }
      const binary = atob(byId("drill-data").textContent.trim());
      const bytes = new Uint8Array(binary.length);
      for (let i = 0; i < binary.length; i += 1) {
        bytes[i] = binary.charCodeAt(i);
      }
      const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
      fragments = JSON.parse(await new Response(stream).text());
    }
    return fragments;
  }

  function mark(index) {
    rows.forEach((row) => row.classList.toggle("current", row.dataset.i === index));
  }

  async function open(index) {
    const row = rowOf.get(index);
    if (!row) {
      return;
    }
    try {
      const list = await unpack();
      body.innerHTML = list[parseInt(index, 10)]; // rendered and escaped by the templates
    } catch (error) {
      body.textContent = String(error.message || error);
    }
    current = index;
    title.textContent = row.cells[0].textContent;
    panel.hidden = false;
    body.scrollTop = 0;
    mark(index);
  }

  function close() {
    panel.hidden = true;
    current = null;
    mark(null);
  }

  function fromHash() {
    const found = /^#sample-(\d+)$/.exec(location.hash);
    if (found) {
      open(found[1]);
    } else if (!panel.hidden) {
      close();
    }
  }

  function show(index) {
    location.hash = "sample-" + index;
  }

  function step(delta) {
    const visible = Array.from(tbody.rows).filter((row) => !row.hidden);
    const at = visible.findIndex((row) => row.dataset.i === current);
    const next = visible[at + delta];
    if (next) {
      show(next.dataset.i);
    }
  }

  tbody.addEventListener("click", (event) => {
    const row = event.target.closest("tr");
    if (row && !event.target.closest("a")) {
      show(row.dataset.i);
    }
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a.sample-link");
    if (link) {
      event.preventDefault();
      const index = indexOfId.get(link.dataset.id);
      if (index !== undefined) {
        show(index);
      }
    }
  });
  body.addEventListener("click", (event) => {
    const link = event.target.closest("a.call-link");
    if (!link) {
      return;
    }
    event.preventDefault();
    const call = byId("call-" + link.dataset.call);
    if (call) {
      call.open = true;
      call.scrollIntoView({ block: "start" });
      call.classList.add("flash");
      setTimeout(() => call.classList.remove("flash"), 1200);
    }
  });
  byId("drill-close").addEventListener("click", () => {
    history.replaceState(null, "", location.pathname + location.search);
    close();
  });
  byId("drill-prev").addEventListener("click", () => step(-1));
  byId("drill-next").addEventListener("click", () => step(1));
  document.addEventListener("keydown", (event) => {
    if (panel.hidden || event.target.closest("input, select, textarea")) {
      return;
    }
    if (event.key === "Escape") {
      byId("drill-close").click();
    } else if (event.key === "j") {
      step(1);
    } else if (event.key === "k") {
      step(-1);
    }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();

// the viewer's list of runs: sorting by a column, filtering by words and state
(function () {
  "use strict";
  const table = document.getElementById("runs-table");
  if (!table) {
    return;
  }
  const tbody = table.tBodies[0];
  const rows = Array.from(tbody.rows);
  const headers = Array.from(table.tHead.rows[0].cells);
  const text = document.getElementById("r-text");
  const state = document.getElementById("r-state");
  const count = document.getElementById("r-count");

  function key(row, col, numeric) {
    const cell = row.cells[col];
    if (!numeric) {
      return cell.textContent.trim();
    }
    return cell.dataset.v === undefined ? null : parseFloat(cell.dataset.v);
  }

  function sortBy(col, th) {
    sortRows(headers, rows, tbody, th, (row, numeric) => key(row, col, numeric));
  }

  headers.forEach((th, col) => {
    if (th.dataset.sort) {
      th.tabIndex = 0;
      th.addEventListener("click", () => sortBy(col, th));
      th.addEventListener("keydown", (event) => {
        if (event.key === "Enter" || event.key === " ") {
          event.preventDefault();
          sortBy(col, th);
        }
      });
    }
  });

  function applyFilters() {
    const words = text.value.toLowerCase().split(/\s+/).filter(Boolean);
    let shown = 0;
    rows.forEach((row) => {
      const keep =
        words.every((w) => row.dataset.text.includes(w)) &&
        (state.value === "" || row.dataset.state === state.value);
      row.hidden = !keep;
      shown += keep ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " runs";
  }

  [text, state].forEach((input) => {
    input.addEventListener("input", applyFilters);
    input.addEventListener("change", applyFilters);
  });
  text.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault(); // the search box belongs to the compare form: do not submit it
    }
  });
})();
