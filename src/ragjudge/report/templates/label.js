// The labelling page of `ragjudge view --label`: keyboard shortcuts, and each label
// sent to the server with the session's token. Text from the server is set with
// textContent only, never as HTML.
(() => {
  "use strict";
  const root = document.getElementById("labelling");
  if (!root) return;
  const tokenTag = document.querySelector('meta[name="ragjudge-token"]');
  const token = tokenTag ? tokenTag.content : "";
  const kind = root.dataset.kind;
  const low = Number(root.dataset.low), high = Number(root.dataset.high);
  const items = Array.from(document.querySelectorAll("article.label-item"));
  const status = document.getElementById("status");
  let at = 0;

  const say = (text) => { status.textContent = text; };
  const current = () => items[at];

  function show(index) {
    if (!items.length) return;
    at = Math.max(0, Math.min(items.length - 1, index));
    items.forEach((item, i) => { item.hidden = i !== at; });
    const saved = items.filter((item) => item.dataset.saved === "1").length;
    document.getElementById("position").textContent =
      `sample ${at + 1} of ${items.length} on this page · ${saved} saved here`;
  }

  function choose(item, value) {
    item.dataset.value = value;
    item.querySelectorAll("button.choice").forEach((b) => {
      b.classList.toggle("chosen", b.dataset.value === value);
    });
  }

  function valueOf(item) {
    if (kind === "rubric") {
      const boxes = Array.from(item.querySelectorAll("input.rubric-item"));
      if (!boxes.length) return undefined;
      const met = {};
      boxes.forEach((b) => { met[b.dataset.item] = b.checked; });
      return met;
    }
    if (kind === "comment") return null;
    const raw = item.dataset.value;
    if (raw === undefined || raw === "") return undefined;
    if (kind === "yesno") return raw === "true";
    if (kind === "scale") return Number(raw);
    return raw;
  }

  const fmt = (x) => (x === null || x === undefined ? "–" : Number(x).toFixed(3));
  const ci = (c) => (c ? ` [${fmt(c[0])}, ${fmt(c[1])}]` : "");

  function progress(p) {
    const put = (id, text) => { document.getElementById(id).textContent = String(text); };
    put("p-samples", p.samples);
    put("p-random", p.random);
    put("p-targeted", p.targeted);
    put("p-mine", p.mine);
    put("p-annotators", p.annotators);
    const a = p.agreement;
    if (a.kind === "yesno") {
      put("p-agreement", `accuracy ${fmt(a.accuracy.value)}${ci(a.accuracy.ci)} · Cohen's κ ${fmt(a.kappa.value)}${ci(a.kappa.ci)} over ${a.n} samples`);
    } else if (a.kind === "scale") {
      put("p-agreement", `weighted κ ${fmt(a.kappa.value)}${ci(a.kappa.ci)} · exact ${fmt(a.exact.value)}${ci(a.exact.ci)} over ${a.n} samples`);
    } else {
      put("p-agreement", `not measured (${a.n} labelled samples with a verdict)`);
    }
    const people = p.people;
    if (people.fleiss_kappa !== null && people.fleiss_kappa !== undefined) {
      put("p-people", `Fleiss' κ ${fmt(people.fleiss_kappa)} over ${people.fleiss_n} samples labelled by ${people.fleiss_raters} people`);
    } else if (people.pairs.length) {
      put("p-people", people.pairs.map((x) => `${x.first} – ${x.second}: Cohen's κ ${fmt(x.kappa)} over ${x.n} samples`).join(" · "));
    }
    const c = p.calibrated;
    put("p-calibrated", c.value === null || c.value === undefined
      ? "no randomly drawn label yet"
      : `${fmt(c.value)}${ci(c.ci)} · width ${fmt(c.width)} (people's labels alone: ${fmt(c.human_width)})` +
        (c.worth ? ` · worth ≈ ${Math.round(c.worth)} labels` : "") + ` · from ${c.used} random labels`);
    put("p-hint", p.hint);
  }

  async function send(body) {
    const reply = await fetch(window.location.pathname + window.location.search, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Ragjudge-Token": token },
      body: JSON.stringify(body),
    });
    const data = await reply.json().catch(() => ({ error: `the server answered ${reply.status}` }));
    if (!reply.ok) throw new Error(data.error || `the server answered ${reply.status}`);
    return data;
  }

  async function save() {
    const item = current();
    if (!item) return;
    const value = valueOf(item);
    const comment = item.querySelector("textarea.comment").value;
    if (value === undefined) { say(kind === "yesno" ? "choose y or n first" : "choose a label first"); return; }
    try {
      const data = await send({ request_id: item.dataset.requestId, value, comment });
      item.dataset.saved = "1";
      progress(data.progress);
      say(`saved ${item.dataset.requestId}`);
      show(at + 1);
    } catch (error) { say(`not saved: ${error.message}`); }
  }

  async function clear() {
    const item = current();
    if (!item) return;
    delete item.dataset.value;
    choose(item, "");
    item.querySelectorAll("input.rubric-item").forEach((b) => { b.checked = false; });
    item.querySelector("textarea.comment").value = "";
    if (item.dataset.saved !== "1") return;
    try {
      const data = await send({ request_id: item.dataset.requestId, clear: true });
      item.dataset.saved = "0";
      progress(data.progress);
      say(`cleared ${item.dataset.requestId}`);
      show(at);
    } catch (error) { say(`not cleared: ${error.message}`); }
  }

  function digit(item, n) {
    if (kind === "scale" && n >= low && n <= high) choose(item, String(n));
    if (kind === "choice") {
      const button = item.querySelectorAll("button.choice")[n - 1];
      if (button) choose(item, button.dataset.value);
    }
    if (kind === "rubric") {
      const box = item.querySelectorAll("input.rubric-item")[n - 1];
      if (box) box.checked = !box.checked;
    }
  }

  document.addEventListener("keydown", (event) => {
    const item = current();
    if (!item || event.ctrlKey || event.metaKey || event.altKey) return;
    const typing = event.target instanceof HTMLTextAreaElement;
    if (event.key === "Enter" && !event.shiftKey) { event.preventDefault(); save(); return; }
    if (typing) { if (event.key === "Escape") event.target.blur(); return; }
    const key = event.key;
    if (kind === "yesno" && (key === "y" || key === "n")) choose(item, key === "y" ? "true" : "false");
    else if (/^[0-9]$/.test(key)) digit(item, Number(key));
    else if (key === "c") { event.preventDefault(); item.querySelector("textarea.comment").focus(); }
    else if (key === "j" || key === "ArrowDown" || key === "ArrowRight") show(at + 1);
    else if (key === "k" || key === "ArrowUp" || key === "ArrowLeft") show(at - 1);
    else if (key === "u") clear();
    else return;
    event.preventDefault();
  });

  items.forEach((item) => {
    item.querySelectorAll("button.choice").forEach((b) => {
      b.addEventListener("click", () => choose(item, b.dataset.value));
    });
  });
  progress(JSON.parse(root.dataset.progress));
  show(0);
})();
