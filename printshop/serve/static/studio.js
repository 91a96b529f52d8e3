// printshop studio: follow the server's events and swap the parts of the page that changed.
"use strict";

const game = document.body.dataset.game;

function watched(tokens) {
  const all = [...document.querySelectorAll("[data-watch]")].filter(el =>
    el.dataset.watch.split(" ").some(t => tokens.has(t)));
  return all.filter(el => !all.some(other => other !== el && other.contains(el)));
}

async function swap(el) {
  const url = el.dataset.fragment || location.pathname + location.search;
  const response = await fetch(url, {cache: "no-store"});
  if (!el.dataset.fragment) {
    if (!response.ok) return;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = el.id && doc.getElementById(el.id);
    if (fresh) el.replaceWith(document.importNode(fresh, true));
    return;
  }
  if (response.status === 404) {
    el.classList.add("gone");
    return;
  }
  const holder = document.createElement("template");
  holder.innerHTML = (await response.text()).trim();
  const fresh = holder.content.firstElementChild;
  if (!fresh) return;
  el.replaceWith(fresh);
  document.dispatchEvent(new CustomEvent("studio:swapped", {detail: fresh.id}));
}

async function update(event) {
  // a change not yet checked against the rules is followed by one that is
  const tokens = new Set(event.checked === false ? [] : ["any", "problems"]);
  for (const c of event.cards || []) tokens.add("card:" + c);
  for (const c of event.components || []) tokens.add("component:" + c);
  await Promise.all(watched(tokens).map(swap));
  if (event.version) document.body.dataset.version = event.version;
  applyFilter();
  document.dispatchEvent(new CustomEvent("studio:updated", {detail: event}));
}

function applyFilter() {
  const select = document.getElementById("filter-component");
  const search = document.getElementById("filter-search");
  const backs = document.getElementById("show-backs");
  if (!select) return;
  const part = select.value;
  const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  document.body.classList.toggle("show-backs", backs.checked);
  let distinct = 0, copies = 0;
  for (const section of document.querySelectorAll("section.component")) {
    const inPart = !part || section.dataset.component === part;
    let visible = 0;
    for (const tile of section.querySelectorAll(".tile")) {
      const show = inPart && words.every(w => tile.dataset.search.includes(w));
      tile.hidden = !show;
      if (show) { visible++; distinct++; copies += Number(tile.dataset.copies); }
    }
    const hasTiles = section.querySelector(".tile") !== null;
    section.hidden = !inPart || (words.length > 0 && (!hasTiles || visible === 0));
  }
  const shown = document.getElementById("shown");
  if (shown) shown.textContent = `${distinct} cards shown (${copies} with copies)`;
}

function connect() {
  const live = document.getElementById("live");
  const source = new EventSource("/api/events");
  source.onopen = () => live && live.classList.add("on");
  source.onerror = () => live && live.classList.remove("on");
  source.addEventListener("game", message => {
    const event = JSON.parse(message.data);
    if (!game || event.game === game) update(event);
  });
  source.addEventListener("games", () => update({cards: [], components: []}));
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["filter-component", "filter-search", "show-backs"]) {
    const el = document.getElementById(id);
    if (!el) continue;
    el.addEventListener("input", applyFilter);
    el.addEventListener("change", applyFilter);
  }
  applyFilter();
  connect();
});
