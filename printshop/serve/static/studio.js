// printshop studio: follow the server's events and swap the parts of the page that changed.
"use strict";

const game = document.body.dataset.game;
const instance = document.body.dataset.instance;

function watched(tokens) {
  const all = [...document.querySelectorAll("[data-watch]")].filter(el =>
    el.dataset.watch.split(" ").some(t => tokens.has(t)));
  const chosen = new Set(all);
  // an element inside another one being swapped comes with it
  return all.filter(el => {
    for (let up = el.parentElement?.closest("[data-watch]"); up;
         up = up.parentElement?.closest("[data-watch]"))
      if (chosen.has(up)) return false;
    return true;
  });
}

// Where keyboard focus was inside an element about to be swapped, to put it back after.
function focusKey(el) {
  const active = document.activeElement;
  if (!active || active === document.body || !el.contains(active)) return null;
  if (active.id) return "#" + CSS.escape(active.id);
  const tag = active.tagName.toLowerCase() +
    [...active.classList].map(c => "." + CSS.escape(c)).join("");
  for (const attribute of ["href", "name", "action"]) {
    const value = active.getAttribute(attribute);
    if (value) return `${tag}[${attribute}="${CSS.escape(value)}"]`;
  }
  return tag;
}

function restoreFocus(fresh, key) {
  if (!key) return;
  const target = fresh.matches(key) ? fresh : fresh.querySelector(key);
  if (target) target.focus({preventScroll: true});
}

async function swap(el) {
  const url = el.dataset.fragment || location.pathname + location.search;
  const response = await fetch(url, {cache: "no-store"});
  if (!el.dataset.fragment) {
    if (!response.ok) return null;
    const doc = new DOMParser().parseFromString(await response.text(), "text/html");
    const fresh = el.id && doc.getElementById(el.id);
    if (fresh) { el.replaceWith(document.importNode(fresh, true)); tileIndex = null; }
    return fresh;
  }
  if (response.status === 404) {
    el.classList.add("gone");
    return null;
  }
  const holder = document.createElement("template");
  holder.innerHTML = (await response.text()).trim();
  const fresh = holder.content.firstElementChild;
  if (!fresh) return null;
  const key = focusKey(el);
  el.replaceWith(fresh);
  indexTile(fresh);
  restoreFocus(fresh, key);
  if (fresh.dataset.title) document.title = fresh.dataset.title;
  observeLazy(fresh);
  if (fresh.id === "bar") setLive(true);
  document.dispatchEvent(new CustomEvent("studio:swapped", {detail: fresh.id}));
  return fresh;
}

// Tiles past a deck's first cards are drawn when they come near the viewport: fetched a few
// at a time, and put into the page a few a frame (fewer while the page scrolls, when each
// frame paints new tiles anyway), so that scrolling never waits long.
const LAZY_FETCHES = 4, LAZY_PER_FRAME = 12, LAZY_PER_SCROLLING_FRAME = 3, MANY_TILES = 24;
let lastScroll = 0;
addEventListener("scroll", () => { lastScroll = performance.now(); }, {passive: true});
const lazyQueue = [], lazyReady = [];
let lazyBusy = 0, lazyFrame = false;

function pumpLazy() {
  while (lazyBusy < LAZY_FETCHES && lazyQueue.length) {
    const tile = lazyQueue.shift();
    if (!tile.isConnected) continue;
    const box = tile.getBoundingClientRect();
    if (box.bottom < -2 * innerHeight || box.top > 3 * innerHeight) {
      lazy.observe(tile);          // scrolled past before its turn: drawn if it comes back
      continue;
    }
    lazyBusy++;
    fetch(tile.dataset.fragment, {cache: "no-store"})
      .then(r => r.ok ? r.text() : null)
      .then(html => { if (html) lazyReady.push([tile, html]); placeLazy(); })
      .finally(() => { lazyBusy--; pumpLazy(); });
  }
}

function placeLazy() {
  if (lazyFrame) return;
  lazyFrame = true;
  requestAnimationFrame(() => {
    lazyFrame = false;
    const scrolling = performance.now() - lastScroll < 250;
    const batch = scrolling ? LAZY_PER_SCROLLING_FRAME : LAZY_PER_FRAME;
    for (const [tile, html] of lazyReady.splice(0, batch)) {
      if (!tile.isConnected) continue;
      const holder = document.createElement("template");
      holder.innerHTML = html.trim();
      const fresh = holder.content.firstElementChild;
      if (fresh) { tile.replaceWith(fresh); indexTile(fresh); }
    }
    if (lazyReady.length) placeLazy();
  });
}

// Tiles on screen are fetched before those in the margin around it.
const lazy = "IntersectionObserver" in window ? new IntersectionObserver(entries => {
  const onScreen = [], near = [];
  for (const entry of entries) {
    if (!entry.isIntersecting) continue;
    lazy.unobserve(entry.target);
    const box = entry.boundingClientRect;
    (box.bottom > 0 && box.top < innerHeight ? onScreen : near).push(entry.target);
  }
  lazyQueue.unshift(...onScreen);
  lazyQueue.push(...near);
  pumpLazy();
}, {rootMargin: "600px 0px"}) : null;

function observeLazy(root) {
  const tiles = root.matches && root.matches("[data-lazy]") ? [root] :
    root.querySelectorAll("[data-lazy]");
  for (const tile of tiles) lazy ? lazy.observe(tile) : swap(tile);
}

function announce(text) {
  const region = document.getElementById("announce");
  if (region) region.textContent = text;
}

async function update(event) {
  // a change not yet checked against the rules is followed by one that is
  const tokens = new Set(event.checked === false ? [] : ["any", "problems"]);
  for (const c of event.cards || []) tokens.add("card:" + c);
  for (const c of event.components || []) tokens.add("component:" + c);
  const changed = event.cards || [];
  let targets = watched(tokens);
  if (changed.length > MANY_TILES) {
    // A template edit on a big deck: the tiles are drawn again as they come near the
    // viewport (those on screen first), each showing its old drawing until then.
    const tiles = targets.filter(el => el.classList.contains("tile"));
    targets = targets.filter(el => !el.classList.contains("tile"));
    for (const tile of tiles) {
      tile.setAttribute("data-lazy", "");
      lazy ? lazy.observe(tile) : targets.push(tile);
    }
  }
  await Promise.all(targets.map(swap));
  if (event.version) document.body.dataset.version = event.version;
  if (changed.length && changed.length <= MANY_TILES) {   // show what changed (not a deck)
    const els = changed.flatMap(c =>
      [...document.querySelectorAll(`[data-card="${CSS.escape(c)}"]`)]);
    for (const el of els) el.classList.remove("flash");
    void document.body.offsetWidth;               // one reflow restarts every animation
    for (const el of els) el.classList.add("flash");
  }
  applyFilter(false);
  if (event.checked !== false && event.game) {
    const badge = document.getElementById("badge");
    announce(`${event.game}: ${event.ok === false ? "does not load" :
      (badge ? badge.textContent : "updated")}`);
  }
  document.dispatchEvent(new CustomEvent("studio:updated", {detail: event}));
}

// The filter lives in the URL (?q=&component=&backs=1), so a reload or a link keeps it.
function readFilter() {
  const params = new URLSearchParams(location.search);
  const select = document.getElementById("filter-component");
  if (!select) return;
  if (params.has("component")) select.value = params.get("component");
  if (params.has("q")) document.getElementById("filter-search").value = params.get("q");
  if (params.has("zoom")) document.getElementById("zoom").value = params.get("zoom");
  document.getElementById("show-backs").checked = params.get("backs") === "1";
}

function writeFilter() {
  const params = new URLSearchParams(location.search);
  const set = (k, v) => v ? params.set(k, v) : params.delete(k);
  set("component", document.getElementById("filter-component").value);
  set("q", document.getElementById("filter-search").value.trim());
  set("backs", document.getElementById("show-backs").checked ? "1" : "");
  const zoom = document.getElementById("zoom").value;
  set("zoom", zoom === "150" ? "" : zoom);
  const query = params.toString();
  history.replaceState(null, "", location.pathname + (query ? "?" + query : "") + location.hash);
}

// The search runs over an index built from the tiles once (their lower-cased text, grid and
// copies), so filtering reads nothing from the page and writes only to the tiles whose state
// changes. A tile swapped for a newer drawing takes its entry's place (indexTile). A grid the
// search leaves empty is hidden whole: its tiles are then not even styled.
let tileIndex = null, writePending = false;
const tileEntries = new Map();

function buildIndex() {
  tileIndex = [];
  tileEntries.clear();
  for (const section of document.querySelectorAll("section.component")) {
    const grids = [];
    for (const grid of section.querySelectorAll(".grid")) {
      const entries = [];
      for (const tile of grid.querySelectorAll(".tile")) {
        const entry = {tile, text: tile.dataset.search || "",
                       copies: Number(tile.dataset.copies), shown: !tile.hidden};
        entries.push(entry);
        tileEntries.set(tile.id, entry);
      }
      grids.push({grid, entries, hidden: grid.hidden});
    }
    tileIndex.push({section, part: section.dataset.component, grids, hidden: section.hidden});
  }
}

function indexTile(fresh) {
  if (!tileIndex) return;
  if (!fresh.classList.contains("tile")) { tileIndex = null; return; }  // a whole section
  const entry = tileEntries.get(fresh.id);
  if (!entry) { tileIndex = null; return; }                            // a tile not seen yet
  entry.tile = fresh;
  entry.text = fresh.dataset.search || "";
  entry.copies = Number(fresh.dataset.copies);
  fresh.hidden = !entry.shown;
}

function applyFilter(remember = true) {
  const select = document.getElementById("filter-component");
  const search = document.getElementById("filter-search");
  const backs = document.getElementById("show-backs");
  if (!select) return;
  if (remember && !writePending) {      // the address follows once the results are shown
    writePending = true;
    setTimeout(() => { writePending = false; writeFilter(); });
  }
  if (!tileIndex) buildIndex();
  const part = select.value;
  const words = search.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  const body = document.body;
  if (body.classList.contains("show-backs") !== backs.checked)
    body.classList.toggle("show-backs", backs.checked);
  const holder = document.getElementById("components");
  if (holder && holder.classList.contains("filtering") !== words.length > 0)
    holder.classList.toggle("filtering", words.length > 0);
  const zoom = document.getElementById("zoom").value + "px";
  if (body.style.getPropertyValue("--tile") !== zoom) body.style.setProperty("--tile", zoom);
  let distinct = 0, copies = 0;
  for (const group of tileIndex) {
    const inPart = !part || group.part === part;
    let visible = 0;
    for (const chunk of group.grids) {
      let inChunk = 0;
      for (const entry of chunk.entries) {
        let show = inPart;
        for (let i = 0; show && i < words.length; i++) show = entry.text.includes(words[i]);
        if (entry.shown !== show) { entry.shown = show; entry.tile.hidden = !show; }
        if (show) { inChunk++; copies += entry.copies; }
      }
      if (chunk.hidden !== (inChunk === 0))
        chunk.grid.hidden = chunk.hidden = inChunk === 0;
      visible += inChunk;
    }
    distinct += visible;
    const hide = !inPart || (words.length > 0 && visible === 0);
    if (group.hidden !== hide) { group.hidden = hide; group.section.hidden = hide; }
  }
  const shown = document.getElementById("shown");
  const text = `${distinct} cards shown (${copies} with copies)`;
  if (shown && shown.textContent !== text) shown.textContent = text;
}

function setLive(on) {
  const live = document.getElementById("live");
  if (!live) return;
  live.classList.toggle("on", on);
  live.textContent = on ? "live" : "offline, reconnecting";
}

function connect() {
  const source = new EventSource("/api/events");
  source.onopen = () => setLive(true);
  source.onerror = () => setLive(false);
  source.addEventListener("hello", message => {
    const hello = JSON.parse(message.data);
    const version = game && hello.versions ? String(hello.versions[game]) : null;
    // The studio restarted (every drawing and the page's token may have changed), or the
    // game changed while the page was not listening: show it as it is now.
    if (hello.instance !== instance ||
        (version !== null && version !== document.body.dataset.version)) location.reload();
  });
  source.addEventListener("game", message => {
    const event = JSON.parse(message.data);
    if (!game || event.game === game) update(event);
  });
  source.addEventListener("games", () => update({cards: [], components: []}));
}

// "edit" beside a file:line asks the studio to open the file in the designer's editor.
document.addEventListener("click", async event => {
  const button = event.target.closest("button.open-editor");
  if (!button) return;
  const token = document.querySelector('meta[name="studio-token"]').content;
  const query = new URLSearchParams({file: button.dataset.file, line: button.dataset.line});
  const response = await fetch("/api/open?" + query, {method: "POST",
    headers: {"X-Studio-Token": token}});
  const answer = await response.json();
  announce(response.ok ? `Opened ${answer.opened}:${answer.line} in the editor` : answer.error);
  button.title = response.ok ? "Opened in your editor" : answer.error;
});

// On a card page: [ and ] (j and k, or the arrow keys) for the previous and next card, f to
// turn the card over. The side shown stays in the URL (?side=back) and goes to the next card.
function showSide(side) {
  const page = document.querySelector(".card-page.has-back");
  if (!page) return;
  page.classList.toggle("show-back", side === "back");
  const button = document.getElementById("flip");
  button.setAttribute("aria-pressed", side === "back" ? "true" : "false");
  button.textContent = side === "back" ? "Show the front (f)" : "Show the back (f)";
  const params = new URLSearchParams(location.search);
  side === "back" ? params.set("side", "back") : params.delete("side");
  const query = params.toString() ? "?" + params : "";
  history.replaceState(null, "", location.pathname + query + location.hash);
  for (const link of document.querySelectorAll(".card-nav a[rel]"))
    link.search = query;
}

function flip() {
  const page = document.querySelector(".card-page.has-back");
  if (page) showSide(page.classList.contains("show-back") ? "front" : "back");
}

document.addEventListener("click", event => {
  if (event.target.closest("#flip")) flip();
});

document.addEventListener("keydown", event => {
  if (event.target.closest("input, select, textarea") || event.ctrlKey || event.metaKey ||
      event.altKey) return;
  if (event.key === "f") { flip(); return; }
  const rel = {"[": "prev", "k": "prev", "ArrowLeft": "prev",
               "]": "next", "j": "next", "ArrowRight": "next"}[event.key];
  const link = rel && document.querySelector(`.card-nav a[rel="${rel}"]`);
  if (link) location.href = link.href;
});

// The print preview draws its sheets again when an option changes.
document.addEventListener("change", event => {
  const form = event.target.closest("form#print-options");
  if (form) form.requestSubmit();
});

document.addEventListener("DOMContentLoaded", () => {
  readFilter();
  if (new URLSearchParams(location.search).get("side") === "back") showSide("back");
  observeLazy(document);
  for (const id of ["filter-component", "filter-search", "show-backs", "zoom"]) {
    const el = document.getElementById(id);
    if (!el) continue;
    el.addEventListener("input", () => applyFilter());
    el.addEventListener("change", () => applyFilter());
  }
  applyFilter(false);
  connect();
});
