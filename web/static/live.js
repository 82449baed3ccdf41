// The live page of a tournament run: a read-only view pushed by server-sent events.
"use strict";

const $ = (id) => document.getElementById(id);
const boards = new Map(); // game index -> { box, board }

function fmtElo(value) { return value === null || value === undefined ? "?" : (value > 0 ? "+" : "") + value.toFixed(1); }
function fmtErr(value) { return value === null || value === undefined ? "\u221e" : value.toFixed(1); }
function fmtClock(seconds) {
  if (seconds === null || seconds === undefined) return "";
  const m = Math.floor(seconds / 60);
  const s = seconds - 60 * m;
  return `${m}:${s < 10 ? "0" : ""}${s.toFixed(seconds < 10 ? 1 : 0)}`;
}

function row(cells, header = false) {
  const tr = el("tr");
  cells.forEach((cell, i) => {
    const td = el(header ? "th" : "td", i === 0 && !header ? { class: "name" } : {}, String(cell));
    tr.appendChild(td);
  });
  return tr;
}

function render(s) {
  $("event").textContent = s.event;
  $("progress").textContent = `${s.done} of ${s.total} games finished, ${s.running} in progress` +
    (s.finished_run ? " \u2014 the run has ended" : "");
  $("progress").dataset.done = String(s.done);
  const h = s.headline;
  const headline = $("headline");
  headline.textContent = "";
  headline.appendChild(el("div", { class: "result" }, `${h.name} vs ${h.opponent}`));
  headline.appendChild(el("div", {}, `W-L-D ${h.wins}-${h.losses}-${h.draws}, score ${(100 * h.score).toFixed(1)} %`));
  headline.appendChild(el("div", { id: "elo" }, `Elo ${fmtElo(h.elo)} \u00b1 ${fmtErr(h.error)}` +
    (h.low !== null && h.high !== null ? ` [${fmtElo(h.low)}, ${fmtElo(h.high)}]` : "")));
  headline.appendChild(el("div", {}, `LOS ${(100 * h.los).toFixed(1)} %`));
  headline.appendChild(el("div", {}, `Pentanomial (0-2) [${h.pentanomial.join(", ")}]`));

  $("sprt-panel").classList.toggle("hidden", !s.sprt);
  if (s.sprt) drawSprt(s.sprt);

  const standings = $("standings");
  standings.textContent = "";
  standings.appendChild(row(["#", "Engine", "Games", "W-L-D", "Score", "Elo", "\u00b1", "LOS", "Ptnml"], true));
  s.standings.forEach((r, i) => {
    const tr = row([i + 1, r.name, r.games, `${r.wins}-${r.losses}-${r.draws}`, `${(100 * r.score).toFixed(1)}%`,
      fmtElo(r.elo), fmtErr(r.error), `${(100 * r.los).toFixed(0)}%`, r.pentanomial.join(" ")]);
    tr.firstChild.className = "";
    tr.children[1].className = "name";
    tr.dataset.engine = r.name;
    standings.appendChild(tr);
  });

  const cross = $("crosstable");
  cross.textContent = "";
  cross.appendChild(row(["", ...s.engines], true));
  for (const a of s.engines) cross.appendChild(row([a, ...s.engines.map((b) => (a === b ? "\u2014" : s.crosstable[a][b] || ""))]));

  renderPlaying(s.playing);

  const finished = $("finished");
  finished.textContent = "";
  finished.appendChild(row(["Game", "White", "Black", "Result", "Plies", "Reason", "PGN"], true));
  for (const g of s.finished) {
    const tr = row([g.index + 1, g.white, g.black, g.result, g.plies, g.reason, ""]);
    if (g.pgn) {
      const button = el("button", { "data-game": String(g.index + 1) }, "PGN");
      button.addEventListener("click", () => showPgn(g.index + 1));
      tr.lastChild.appendChild(button);
    }
    finished.appendChild(tr);
  }
}

function renderPlaying(playing) {
  const container = $("playing");
  const live = new Set(playing.map((g) => g.index));
  for (const [index, entry] of boards) {
    if (!live.has(index)) { entry.box.remove(); boards.delete(index); }
  }
  for (const g of playing) {
    let entry = boards.get(g.index);
    if (!entry) {
      const box = el("div", { class: "game", "data-game": String(g.index + 1) });
      const top = el("div", { class: "player top" });
      const boardEl = el("div");
      const bottom = el("div", { class: "player bottom" });
      const info = el("div", { class: "info" });
      box.append(top, boardEl, bottom, info);
      container.appendChild(box);
      entry = { box, board: new ChessBoard(boardEl, { small: true }), top, bottom, info };
      boards.set(g.index, entry);
    }
    entry.board.set({ fen: g.fen, legal: [], last: g.last, check: null, movable: null });
    entry.top.textContent = "";
    entry.top.append(el("span", {}, `\u265A ${g.black}`), el("span", { class: "clock-b" }, fmtClock(g.black_clock)));
    entry.bottom.textContent = "";
    entry.bottom.append(el("span", {}, `\u2654 ${g.white}`), el("span", { class: "clock-w" }, fmtClock(g.white_clock)));
    entry.info.textContent = `game ${g.index + 1}, ply ${g.ply}` + (g.score ? `, score ${g.score}` : "");
  }
  if (!playing.length && !container.childElementCount) container.textContent = "";
}

function drawSprt(sprt) {
  $("sprt-text").textContent = `SPRT [${sprt.elo0}, ${sprt.elo1}] (${sprt.model}): LLR ${sprt.llr.toFixed(2)} ` +
    `in [${sprt.lower.toFixed(2)}, ${sprt.upper.toFixed(2)}]` + (sprt.decision ? ` \u2014 ${sprt.decision} accepted` : "");
  const svg = $("sprt-graph");
  svg.textContent = "";
  const ns = "http://www.w3.org/2000/svg";
  const top = sprt.upper * 1.1;
  const bottom = sprt.lower * 1.1;
  const n = Math.max(sprt.path.length, 10);
  const y = (v) => 140 * (top - Math.max(bottom, Math.min(top, v))) / (top - bottom);
  const line = (x1, y1, x2, y2, color, dash) => {
    const l = document.createElementNS(ns, "line");
    Object.entries({ x1, y1, x2, y2, stroke: color, "stroke-dasharray": dash || "" }).forEach(([k, v]) => l.setAttribute(k, v));
    svg.appendChild(l);
  };
  line(0, y(sprt.upper), 600, y(sprt.upper), "#2a8a2a", "6 4");
  line(0, y(sprt.lower), 600, y(sprt.lower), "#b03030", "6 4");
  line(0, y(0), 600, y(0), "#999", "2 3");
  if (sprt.path.length) {
    const path = document.createElementNS(ns, "polyline");
    path.setAttribute("points", [`0,${y(0)}`, ...sprt.path.map((v, i) => `${(600 * (i + 1)) / n},${y(v)}`)].join(" "));
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "#2f6fb0");
    path.setAttribute("stroke-width", "2");
    path.setAttribute("id", "llr-path");
    svg.appendChild(path);
  }
}

async function showPgn(number) {
  const response = await fetch(`/pgn/${number}`);
  const pre = $("pgn");
  pre.textContent = await response.text();
  pre.classList.remove("hidden");
}

function connect() {
  const source = new EventSource("/events");
  source.onmessage = (event) => {
    const snapshot = JSON.parse(event.data);
    $("connection").textContent = "";
    render(snapshot);
    if (snapshot.finished_run) source.close(); // the server goes away with the run: no reconnecting
  };
  source.onerror = () => { $("connection").textContent = "(reconnecting\u2026)"; };
}

connect();
