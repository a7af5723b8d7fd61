// The Card Arena replay player: steps through the frames embedded in the page and draws
// each view generically (cards as cards, lists of cards as rows, objects as labelled
// zones), with small layout hints for known shapes (golf layouts, tableau columns,
// tricks with their seats). In seat mode only that seat's observation and the event
// texts it could read are drawn; "all hands" draws the public view and every seat.
(() => {
  "use strict";
  const DATA = JSON.parse(document.getElementById("replay-data").textContent);
  const M = DATA.match;
  const FRAMES = DATA.frames;
  const TABLE = DATA.table;
  const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
  const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
  const CARD_RE = /^(?:[A2-9TJQK][CDHS]|JK)$/;
  const SEAT_KEYS = new Set(["seat", "dealer", "leader", "winner", "holder", "to_act", "opponent",
    "first_dealer", "ace_holder", "joker_holder", "ended_by", "current", "from_seat", "to_seat",
    "dingo_seat", "rabbit_seat", "knocker", "next_dealer"]);
  const COLUMN_KEYS = new Set(["tableau"]);
  const SEAT_LIST_KEYS = new Set(["seats", "order", "kankei", "passed", "to_act", "trick_seats", "forfeited"]);
  const CARD_LIST_NAME = /^(hand|cards|trick|table|discard|discard_pile|stock|foundation|unseen|hunt_deck|first_draw|shown_cards)$/;
  const LOG_FRAMES = 200;
  const HAND_WORD = { golf: "hole", golf_solitaire: "hole", dingo: "deal" }[M.game] || "hand";

  const $ = (id) => document.getElementById(id);
  const ui = {
    table: $("table"), now: $("now"), log: $("log"), seat: $("seat"), hand: $("hand"),
    trick: $("trick"), scrub: $("scrub"), step: $("step-label"), play: $("play"),
    speed: $("speed"), full: $("full"), help: $("help"),
  };
  const st = { frame: 0, seat: "all", playing: false, timer: null, open: new Set() };

  // ---- data ------------------------------------------------------------------------
  const viewCache = new Map();
  function view(i) {
    if (viewCache.has(i)) return viewCache.get(i);
    const row = TABLE.views[i];
    let out;
    if (row[0] < 0) {
      out = TABLE.values[row[1]];
    } else {
      out = {};
      TABLE.shapes[row[0]].forEach((key, k) => { out[key] = TABLE.values[row[k + 1]]; });
    }
    viewCache.set(i, out);
    return out;
  }
  // Frames are grouped by the hand number of their events; a hand is labelled with the
  // public view's own counter where it has one (golf's holes count from 1, its events from 0).
  const HAND_FIELDS = ["hand_number", "deal_number", "hole", "deal"];
  const hands = [];
  const tricks = [];
  FRAMES.forEach((f, i) => {
    if (!hands.length || hands[hands.length - 1].hand !== f.h) {
      const pub = view(f.p);
      const field = HAND_FIELDS.find((k) => pub && Number.isInteger(pub[k]) && pub[k] > 0);
      hands.push({ hand: f.h, frame: i, label: field ? pub[field] : f.h });
    }
    const key = f.t === undefined ? null : `${f.h}/${f.t}`;
    if (key !== null && (!tricks.length || tricks[tricks.length - 1].key !== key)) {
      tricks.push({ key, hand: f.h, trick: f.t, frame: i });
    }
  });

  // ---- small DOM helpers -----------------------------------------------------------
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  const human = (key) => key.replace(/_/g, " ");
  const player = (s) => (s >= 0 && s < M.players.length ? M.players[s] : "");
  const seatName = (s) => (s < 0 ? "—" : `seat ${s}${player(s) ? ` (${player(s)})` : ""}`);
  const isCard = (x) => typeof x === "string" && CARD_RE.test(x);
  const isScalar = (x) => x === null || ["string", "number", "boolean"].includes(typeof x);
  const isCardList = (x) => Array.isArray(x) && x.length > 0 && x.every((c) => c === null || isCard(c))
    && x.some(isCard);
  const isGroupList = (x) => Array.isArray(x) && x.length > 0
    && x.every((g) => Array.isArray(g) && g.every((c) => c === null || isCard(c)));
  const isObject = (x) => x !== null && typeof x === "object" && !Array.isArray(x);
  const hasCards = (x) => (isCard(x) ? true : Array.isArray(x) ? x.some(hasCards)
    : isObject(x) ? Object.entries(x).some(([k, v]) => hasCards(v) || (k === "card" && v === null)) : false);

  function cardEl(code, note) {
    const d = el("span", "card");
    d.dataset.card = code;
    d.title = code;
    if (code === "JK") {
      d.classList.add("joker");
      d.append(el("span", "rank", "JK"), el("span", "suit", "★"));
    } else {
      const suit = code[1];
      if (suit === "H" || suit === "D") d.classList.add("red");
      const corner = el("span", "rank", code[0] === "T" ? "10" : code[0]);
      corner.append(el("small", null, SUITS[suit]));
      d.append(corner, el("span", "suit", SUITS[suit]));
    }
    if (note) {
      d.classList.add(note);
      d.title = `${code} (${note === "known" ? "face down; this seat knows it" : "face down; known to all"})`;
    }
    return d;
  }
  const backEl = (title) => { const d = el("span", "card back"); d.title = title || "face down"; return d; };
  const emptyEl = (title) => { const d = el("span", "card empty"); d.title = title || "empty"; return d; };

  function scalarText(key, value) {
    if (value === null || value === "") return "—";
    if (typeof value === "boolean") return value ? "yes" : "no";
    if (typeof value === "number" && SEAT_KEYS.has(key)) return value < 0 ? "—" : seatName(value);
    if (typeof value === "string" && /suit|trump/.test(key) && SUITS[value]) {
      return `${SUITS[value]} ${SUIT_NAMES[value]}`;
    }
    return String(value);
  }
  function chip(key, text) {
    const c = el("span", "chip");
    c.append(el("b", null, `${human(key)} `), document.createTextNode(text));
    return c;
  }
  function zone(label, cls) {
    const z = el("fieldset", `zone${cls ? ` ${cls}` : ""}`);
    z.append(el("legend", null, label));
    return z;
  }

  // ---- generic rendering -------------------------------------------------------------
  function cardRow(cards, captions) {
    const row = el("div", "cards");
    cards.forEach((c, i) => {
      const item = c === null ? backEl() : cardEl(c);
      if (captions && captions[i] !== undefined) {
        const w = el("span", "captioned");
        w.append(item, el("span", "caption", captions[i]));
        row.append(w);
      } else {
        row.append(item);
      }
    });
    if (cards.length > 14) row.classList.add("fan");
    if (!cards.length) row.append(el("span", "none", "—"));
    return row;
  }

  function captionFor(obj, skip) {
    const parts = [];
    if ("from_seat" in obj && "to_seat" in obj) parts.push(`${obj.from_seat}→${obj.to_seat}`);
    for (const [k, v] of Object.entries(obj)) {
      if (k === skip || k === "from_seat" || k === "to_seat" || v === null || v === "") continue;
      parts.push(k === "seat" ? `seat ${v}` : `${human(k)} ${scalarText(k, v)}`);
    }
    return parts.join(" · ");
  }
  const isCaptionedCard = (o) => isObject(o) && "card" in o && (o.card === null || isCard(o.card))
    && Object.entries(o).every(([k, v]) => k === "card" || isScalar(v));

  function slotEl(slot) {
    const card = slot.card;
    let item;
    if (slot.state === "removed") item = emptyEl("removed");
    else if (card === null || card === undefined) item = backEl(`position ${slot.position}: face down`);
    else if (slot.state === "known") item = cardEl(card, "known");
    else if (slot.state === "public") item = cardEl(card, "public");
    else item = cardEl(card);
    item.dataset.position = slot.position;
    return item;
  }

  function layoutGrid(slots, ctx) {
    const cols = ctx.root && Number.isInteger(ctx.root.columns) && ctx.root.columns > 0
      ? ctx.root.columns : Math.ceil(Math.sqrt(slots.length));
    const grid = el("div", "grid");
    grid.style.gridTemplateColumns = `repeat(${cols}, auto)`;
    slots.forEach((s) => grid.append(isObject(s) ? slotEl(s) : (isCard(s) ? cardEl(s) : backEl())));
    return grid;
  }

  function recordsTable(items) {
    const keys = [];
    items.forEach((o) => Object.keys(o).forEach((k) => { if (!keys.includes(k)) keys.push(k); }));
    const t = el("table", "records");
    const head = el("tr");
    keys.forEach((k) => head.append(el("th", null, human(k))));
    t.append(head);
    items.forEach((o) => {
      const tr = el("tr");
      keys.forEach((k) => {
        const v = o[k];
        tr.append(el("td", null, Array.isArray(v) ? v.map((x) => scalarText(k, x)).join(" ")
          : isObject(v) ? JSON.stringify(v) : scalarText(k, v)));
      });
      t.append(tr);
    });
    return t;
  }

  function groupRows(key, groups, ctx) {
    const columns = COLUMN_KEYS.has(key);
    const box = el("div", columns ? "columns" : "groups");
    groups.forEach((g, i) => {
      const row = el("div", columns ? "column" : "group");
      const label = columns ? `${i + 1}` : (groups.length === M.seats ? seatName(i) : `${i + 1}`);
      const lab = el("span", "group-label", label);
      if (!columns && groups.length === M.seats && i === ctx.seat) lab.classList.add("you");
      row.append(lab, cardRow(g));
      box.append(row);
    });
    return box;
  }

  function objectPanel(label, obj, ctx, cls) {
    const z = zone(label, cls);
    if (Array.isArray(obj.slots)) {
      const rest = Object.assign({}, obj);
      delete rest.slots;
      delete rest.seat;
      z.append(layoutGrid(obj.slots, ctx));
      renderFields(z, rest, ctx, false);
    } else {
      renderFields(z, obj, ctx, false);
    }
    return z;
  }

  function objectList(parent, key, items, ctx) {
    const z = zone(`${human(key)} (${items.length})`, "list");
    const path = `${ctx.path}/${key}`;
    if (items.every(isCaptionedCard)) {
      z.append(cardRow(items.map((o) => o.card), items.map((o) => captionFor(o, "card"))));
      parent.append(z);
      return;
    }
    if (!items.some(hasCards)) {
      z.append(recordsTable(items));
      parent.append(z);
      return;
    }
    const perSeat = items.length === M.seats && items.every((o) => isObject(o) && "seat" in o);
    const label = (o, i) => (isObject(o) && "seat" in o ? seatName(o.seat)
      : isObject(o) && "number" in o ? `${human(key).replace(/s$/, "")} ${o.number}` : `${i + 1}`);
    const build = (o, i) => {
      const p = objectPanel(label(o, i), o, { ...ctx, path: `${path}/${i}` }, "item");
      if (isObject(o) && o.seat === ctx.seat && ctx.seat !== null) p.classList.add("you");
      return p;
    };
    const wrap = el("div", "items");
    const keep = perSeat || items.length <= 4 ? items.length : 2;
    if (keep < items.length) {
      const det = el("details", "older");
      det.append(el("summary", null, `${items.length - keep} earlier`));
      const inner = el("div", "items");
      items.slice(0, items.length - keep).forEach((o, i) => inner.append(build(o, i)));
      det.append(inner);
      if (st.open.has(path)) det.open = true;
      det.addEventListener("toggle", () => { if (det.open) st.open.add(path); else st.open.delete(path); });
      z.append(det);
    }
    items.slice(items.length - keep).forEach((o, j) => wrap.append(build(o, items.length - keep + j)));
    z.append(wrap);
    parent.append(z);
  }

  // Draws the fields of a view object into ``parent``: scalars as chips, per-seat lists as
  // a table of seats (root only), cards and card lists as rows, objects as zones.
  function renderFields(parent, obj, ctx, root) {
    const chips = el("div", "chips");
    const perSeat = [];
    const zones = [];
    const entries = Object.entries(obj);
    if (root && "hand" in obj) entries.sort(([a], [b]) => (b === "hand") - (a === "hand"));
    const captionKeys = new Map(); // card list key -> the key of the seats that played them
    for (const [key, value] of entries) {
      const seatsKey = key === "cards" ? "seats" : `${key}_seats`;
      if (Array.isArray(value) && Array.isArray(obj[seatsKey]) && obj[seatsKey].length === value.length
        && value.every((c) => c === null || isCard(c))) captionKeys.set(key, seatsKey);
    }
    const captions = new Set(captionKeys.values());
    for (const [key, value] of entries) {
      if (captions.has(key)) continue; // drawn as the captions of their cards
      if (key === "card" && value === null) { zones.push(() => cardZone(key, null)); continue; }
      if (isCard(value)) { zones.push(() => cardZone(key, value)); continue; }
      if (isScalar(value)) {
        if (value === null || value === "") continue;
        if (root && key === "seat") continue;
        chips.append(chip(key, scalarText(key, value)));
        continue;
      }
      if (Array.isArray(value)) {
        if (value.length === 0 && key === "hand" && ctx.seat === null) continue; // a spectator's
        if (isCardList(value) || (value.length === 0 && CARD_LIST_NAME.test(key))) {
          const caps = captionKeys.has(key) ? obj[captionKeys.get(key)].map((s) => seatName(s)) : undefined;
          const label = key === "hand" && ctx.seat !== null ? `${human(key)} — ${seatName(ctx.seat)}` : human(key);
          zones.push(() => {
            const z = zone(label, key === "hand" ? "hand" : "");
            z.append(cardRow(value, caps));
            return z;
          });
          continue;
        }
        if (value.length && value.every(isScalar)) {
          if (root && value.length === M.seats && !SEAT_LIST_KEYS.has(key)) {
            perSeat.push([key, value]);
          } else {
            const itemKey = SEAT_LIST_KEYS.has(key) ? "seat" : key;
            chips.append(chip(key, value.map((v) => scalarText(itemKey, v)).join(", ")));
          }
          continue;
        }
        if (isGroupList(value)) {
          zones.push(() => { const z = zone(human(key), "piles"); z.append(groupRows(key, value, ctx)); return z; });
          continue;
        }
        if (value.length === 0) { chips.append(chip(key, "—")); continue; }
        if (value.every(isObject)) {
          zones.push(() => { const f = el("div"); objectList(f, key, value, ctx); return f.firstChild; });
          continue;
        }
        chips.append(chip(key, JSON.stringify(value)));
        continue;
      }
      if (isObject(value)) {
        if (!hasCards(value) && Object.keys(value).length > 5) {
          const det = el("details", "settings");
          det.append(el("summary", null, human(key)));
          det.append(recordsTable([value]));
          zones.push(() => det);
        } else {
          zones.push(() => objectPanel(human(key), value, { ...ctx, path: `${ctx.path}/${key}` }, ""));
        }
      }
    }
    if (chips.childNodes.length) parent.append(chips);
    if (perSeat.length) parent.append(seatsTable(perSeat, ctx));
    zones.forEach((make) => parent.append(make()));
  }

  function cardZone(key, value) {
    const z = zone(human(key), "single");
    z.append(value === null ? backEl() : cardEl(value));
    return z;
  }

  function seatsTable(columns, ctx) {
    const t = el("table", "seats");
    const head = el("tr");
    head.append(el("th", null, "seat"));
    columns.forEach(([k]) => head.append(el("th", null, human(k))));
    t.append(head);
    for (let s = 0; s < M.seats; s++) {
      const tr = el("tr");
      const name = el("td", "name", seatName(s));
      if (ctx.act.includes(s)) { tr.classList.add("to-act"); name.prepend(el("span", "turn", "▶ ")); }
      if (s === ctx.seat) tr.classList.add("you");
      tr.append(name);
      columns.forEach(([k, v]) => {
        const td = el("td", null, scalarText(k, v[s]));
        if (k === "hand_sizes" && typeof v[s] === "number") td.prepend(el("span", "mini-back"));
        tr.append(td);
      });
      t.append(tr);
    }
    return t;
  }

  function renderView(target, v, ctx) {
    if (isObject(v)) renderFields(target, v, { ...ctx, root: v, path: ctx.path || "" }, true);
    else target.append(el("pre", null, JSON.stringify(v)));
  }

  function diff(obs, pub) {
    const out = {};
    for (const [k, v] of Object.entries(obs)) {
      if (k === "seat") continue;
      if (JSON.stringify(v) !== JSON.stringify(pub ? pub[k] : undefined)) out[k] = v;
    }
    return out;
  }

  // ---- the log -----------------------------------------------------------------------
  function lineText(l, seat) {
    if (l.k === "event") {
      if (seat === "all") return l.all;
      return l.s && l.s[String(seat)] !== undefined ? l.s[String(seat)] : l.pub;
    }
    if (l.k === "decision") {
      if (seat !== "all" && seat !== l.seat) return null; // its public events tell the move
      const status = l.status === "ok" ? "" : ` [${l.status}]`;
      return `▶ ${seatName(l.seat)}: ${l.action}${status} (${Number(l.ms).toFixed(1)} ms)`;
    }
    if (l.k === "fault") {
      const mine = seat === "all" || seat === l.seat;
      return `! fault, ${seatName(l.seat)}: ${l.kind}${mine ? `: ${l.reason}` : ""}`;
    }
    if (l.k === "stderr") {
      if (seat !== "all" && seat !== l.seat) return null; // a bot's log may name its cards
      return `✎ stderr of ${seatName(l.seat)}${l.dropped ? ` (+${l.dropped} bytes not kept)` : ""}:\n${l.text}`;
    }
    if (l.k === "end") {
      const res = M.players.map((p, s) => `${seatName(s)}: ${l.scores[s]} (rank ${l.ranks[s]})`).join(", ");
      return `■ ${l.reason}: ${res}`;
    }
    return null;
  }
  function lineEl(l, seat) {
    const text = lineText(l, seat);
    if (text === null) return null;
    const d = el("div", `line ${l.k}`, text);
    if (l.k === "event") d.classList.add(`ev-${l.kind}`);
    return d;
  }

  // ---- drawing a frame ------------------------------------------------------------
  function render() {
    const i = st.frame;
    const f = FRAMES[i];
    const seat = st.seat;
    document.body.dataset.frame = String(i);
    document.body.dataset.seat = String(seat);
    document.body.dataset.hand = String(f.h);
    const handIndex = hands.findIndex((h, k) => k === hands.length - 1 || hands[k + 1].frame > i);
    const trickText = f.t !== undefined ? ` · trick ${f.t}` : "";
    ui.step.textContent = `step ${i + 1} / ${FRAMES.length} · ${HAND_WORD} ${hands[handIndex].label}${trickText}`;
    ui.scrub.value = String(i);
    ui.seat.value = String(seat);
    ui.hand.value = String(handIndex);
    if (tricks.length) {
      let k = -1;
      tricks.forEach((t, j) => { if (t.frame <= i) k = j; });
      ui.trick.value = String(Math.max(0, k));
    }

    const table = el("div", "table-inner");
    const ctx = { act: f.act, seat: seat === "all" ? null : seat, path: "" };
    if (seat === "all") {
      const pub = view(f.p);
      const panel = el("section", "panel public");
      panel.append(el("h2", null, "table (public view)"));
      renderView(panel, pub, ctx);
      table.append(panel);
      const grid = el("div", "seat-panels");
      for (let s = 0; s < M.seats; s++) {
        const obs = view(f.v[s]);
        const p = el("section", "panel seat-panel");
        p.dataset.seat = String(s);
        if (f.act.includes(s)) p.classList.add("to-act");
        p.append(el("h2", null, `${f.act.includes(s) ? "▶ " : ""}${seatName(s)}${ui.full.checked ? "" : " — beyond the public view"}`));
        const shown = ui.full.checked || !isObject(obs) ? obs : diff(obs, pub);
        renderView(p, shown, { ...ctx, seat: s, path: `/s${s}` });
        if (!p.querySelector(".zone, .chips, table")) p.append(el("div", "none", "nothing private"));
        grid.append(p);
      }
      table.append(grid);
    } else {
      const panel = el("section", "panel seat-view");
      panel.dataset.seat = String(seat);
      panel.append(el("h2", null, `${seatName(seat)} — exactly what this seat sees${f.act.includes(seat) ? " · to act" : ""}`));
      renderView(panel, view(f.v[seat]), ctx);
      table.append(panel);
    }
    ui.table.replaceChildren(table);

    const now = [];
    f.l.forEach((l) => { const d = lineEl(l, seat); if (d) now.push(d); });
    if (!now.length) now.push(el("div", "line quiet", i === 0 ? "the deal" : "(another seat moves)"));
    ui.now.replaceChildren(...now);

    const logItems = [];
    for (let k = Math.max(0, i - LOG_FRAMES); k <= i; k++) {
      const group = el("div", `frame${k === i ? " current" : ""}`);
      group.dataset.frame = String(k);
      FRAMES[k].l.forEach((l) => { const d = lineEl(l, seat); if (d) group.append(d); });
      if (group.childNodes.length) logItems.push(group);
    }
    ui.log.replaceChildren(...logItems);
    ui.log.scrollTop = ui.log.scrollHeight;
    history.replaceState(null, "", `#f=${i + 1}&s=${seat}`);
  }

  // ---- controls ----------------------------------------------------------------------
  function go(i) {
    st.frame = Math.max(0, Math.min(FRAMES.length - 1, i));
    if (st.frame === FRAMES.length - 1) pause();
    render();
  }
  function setSeat(s) { st.seat = s === "all" ? "all" : Number(s); render(); }
  function cycleSeat() {
    setSeat(st.seat === "all" ? 0 : st.seat + 1 >= M.seats ? "all" : st.seat + 1);
  }
  function jumpHand(k) { if (k >= 0 && k < hands.length) go(hands[k].frame); }
  function currentHandIndex() {
    let k = 0;
    hands.forEach((h, j) => { if (h.frame <= st.frame) k = j; });
    return k;
  }
  function jumpTrick(delta) {
    if (!tricks.length) return;
    let k = -1;
    tricks.forEach((t, j) => { if (t.frame <= st.frame) k = j; });
    const target = delta < 0 && k >= 0 && tricks[k].frame < st.frame ? k : k + delta;
    if (target >= 0 && target < tricks.length) go(tricks[target].frame);
  }
  function play() {
    if (st.frame >= FRAMES.length - 1) st.frame = 0;
    st.playing = true;
    ui.play.textContent = "⏸";
    ui.play.title = "pause (space)";
    const tick = () => {
      if (!st.playing) return;
      go(st.frame + 1);
      if (st.playing) st.timer = setTimeout(tick, Number(ui.speed.value));
    };
    st.timer = setTimeout(tick, Number(ui.speed.value));
  }
  function pause() {
    st.playing = false;
    clearTimeout(st.timer);
    ui.play.textContent = "▶";
    ui.play.title = "play (space)";
  }

  function setup() {
    const seatOpt = (value, text) => { const o = el("option", null, text); o.value = value; return o; };
    ui.seat.append(seatOpt("all", "all hands"));
    for (let s = 0; s < M.seats; s++) ui.seat.append(seatOpt(String(s), seatName(s)));
    hands.forEach((h, k) => ui.hand.append(seatOpt(String(k), `${HAND_WORD} ${h.label} (step ${h.frame + 1})`)));
    if (tricks.length) {
      const labelOf = (hand) => (hands.find((h) => h.hand === hand) || { label: hand }).label;
      tricks.forEach((t, k) => ui.trick.append(seatOpt(String(k), `${HAND_WORD} ${labelOf(t.hand)} · trick ${t.trick}`)));
    } else {
      ui.trick.hidden = true;
      $("trick-label").hidden = true;
    }
    ui.scrub.max = String(FRAMES.length - 1);
    $("first").onclick = () => go(0);
    $("prev").onclick = () => go(st.frame - 1);
    $("next").onclick = () => go(st.frame + 1);
    $("last").onclick = () => go(FRAMES.length - 1);
    ui.play.onclick = () => (st.playing ? pause() : play());
    ui.scrub.oninput = () => go(Number(ui.scrub.value));
    ui.seat.onchange = () => { setSeat(ui.seat.value); ui.seat.blur(); };
    ui.hand.onchange = () => { jumpHand(Number(ui.hand.value)); ui.hand.blur(); };
    ui.trick.onchange = () => { go(tricks[Number(ui.trick.value)].frame); ui.trick.blur(); };
    ui.full.onchange = () => { render(); ui.full.blur(); };
    ui.speed.onchange = () => ui.speed.blur();
    // A clicked button keeps no focus, so space always means play/pause.
    document.addEventListener("click", (e) => {
      const button = e.target.closest && e.target.closest("button");
      if (button) button.blur();
    });
    $("help-button").onclick = () => { ui.help.hidden = !ui.help.hidden; };
    ui.log.addEventListener("click", (e) => {
      const group = e.target.closest(".frame");
      if (group) go(Number(group.dataset.frame));
    });
    document.addEventListener("keydown", (e) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const tag = e.target && e.target.tagName;
      const k = e.key;
      if (tag === "SELECT" || (tag === "INPUT" && e.target.type !== "range" && e.target.type !== "checkbox")) return;
      // The slider moves itself on these keys (and its input event steps the replay).
      if (tag === "INPUT" && e.target.type === "range" && /^(Arrow|Home|End|Page)/.test(k)) return;
      let done = true;
      if (k === "ArrowRight") go(st.frame + 1);
      else if (k === "ArrowLeft") go(st.frame - 1);
      else if (k === " ") (st.playing ? pause() : play());
      else if (k === "Home") go(0);
      else if (k === "End") go(FRAMES.length - 1);
      else if (k === "]") jumpHand(currentHandIndex() + 1);
      else if (k === "[") jumpHand(hands[currentHandIndex()].frame < st.frame ? currentHandIndex() : currentHandIndex() - 1);
      else if (/^[1-9]$/.test(k)) jumpHand(Number(k) - 1);
      else if (k === "0") jumpHand(9);
      else if (k === "s") cycleSeat();
      else if (k === "a") setSeat("all");
      else if (k === ".") jumpTrick(1);
      else if (k === ",") jumpTrick(-1);
      else if (k === "f") { ui.full.checked = !ui.full.checked; render(); }
      else if (k === "?") ui.help.hidden = !ui.help.hidden;
      else done = false;
      if (done) e.preventDefault();
    });
    const hash = new URLSearchParams(location.hash.slice(1));
    const initial = document.body.dataset.initialSeat || "all";
    const s = hash.get("s") || initial;
    st.seat = s === "all" || !(Number(s) >= 0 && Number(s) < M.seats) ? "all" : Number(s);
    st.frame = Math.max(0, Math.min(FRAMES.length - 1, (Number(hash.get("f")) || 1) - 1));
    render();
    document.body.dataset.ready = "1";
  }
  setup();
})();
