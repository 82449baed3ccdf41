// The analyse page: a position or a game, the engine's lines pushed over a WebSocket while it thinks,
// and a graph of the evaluation after every move of a loaded game.
"use strict";

const $ = (id) => document.getElementById(id);
const STANDARD = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const state = { start: STANDARD, moves: [], ply: 0, position: null, running: true, review: [], socket: null };
const board = new ChessBoard($("board"), { onMove: userMove });

function connect() {
  const socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/analyse`);
  socket.addEventListener("message", (event) => handle(JSON.parse(event.data)));
  socket.addEventListener("open", () => { if (state.running) analyse(); });
  socket.addEventListener("close", () => { notice("connection to the server lost; reconnecting", "error"); setTimeout(connect, 1000); });
  state.socket = socket;
}

function send(message) {
  if (state.socket && state.socket.readyState === WebSocket.OPEN) state.socket.send(JSON.stringify(message));
}

function handle(message) {
  if (message.type === "info") showLines(message);
  else if (message.type === "review") {
    state.review[message.ply] = message.value;
    drawGraph();
  } else if (message.type === "error") {
    notice(message.error + (message.engine_died ? " (the engine is restarted for the next request)" : ""), "error");
  } else if (message.type === "done" && message.review) {
    notice("evaluation graph complete");
    if (state.running) analyse();
  }
}

function showLines(message) {
  const lines = $("lines");
  lines.textContent = "";
  for (const line of message.lines) {
    const div = el("div", { class: "line" });
    div.appendChild(el("b", {}, line.score));
    div.appendChild(document.createTextNode(" " + line.pv));
    lines.appendChild(div);
  }
  const nps = message.nps ? `${Math.round(message.nps / 1000)} kn/s` : "";
  $("stats").textContent = `depth ${message.depth ?? "?"}${message.seldepth ? "/" + message.seldepth : ""}` +
    `  nodes ${message.nodes ?? "?"}  ${nps}${message.final ? "  (finished)" : ""}`;
  $("stats").dataset.depth = String(message.depth ?? "");
  if (message.lines.length) setBar(message.lines[0].value, message.lines[0].score);
}

function setBar(value, label) {
  // A logistic curve: +-4 pawns fill most of the bar.
  const share = 100 / (1 + Math.exp(-value * 0.7));
  $("evalbar").querySelector(".white").style.height = `${share}%`;
  $("evallabel").textContent = label;
}

async function show() {
  try {
    state.position = await postJson("/api/position", { start: state.start, moves: state.moves.slice(0, state.ply) });
  } catch (err) {
    notice(err.message, "error");
    return;
  }
  const p = state.position;
  board.set({ fen: p.fen, legal: p.legal, last: p.last, check: p.check, movable: "both" });
  $("fen").value = p.fen;
  const all = await postJson("/api/position", { start: state.start, moves: state.moves });
  renderMoves($("moves"), all.san, all.start, state.ply, (ply) => { state.ply = ply; show(); });
  drawGraph();
  $("lines").textContent = "";
  $("stats").textContent = p.outcome ? `${p.outcome.result} \u2014 ${p.outcome.reason}` : "\u00a0";
  if (state.running && !p.outcome) analyse();
}

function analyse() {
  send({ type: "analyse", start: state.start, moves: state.moves.slice(0, state.ply),
         multipv: Number($("multipv").value), threads: Number($("threads").value) });
}

async function userMove(uci) {
  // A move on the board replaces the rest of the game from here.
  state.moves = state.moves.slice(0, state.ply).concat([uci]);
  state.ply += 1;
  state.review = state.review.slice(0, state.ply);
  await show();
}

async function loadFen() {
  const fen = $("fen").value.trim();
  try {
    await postJson("/api/position", { start: fen, moves: [] });
  } catch (err) {
    notice(err.message, "error");
    return;
  }
  notice("");
  Object.assign(state, { start: fen, moves: [], ply: 0, review: [] });
  await show();
}

async function loadPgn() {
  let game;
  try {
    game = await postJson("/api/pgn", { pgn: $("pgn-input").value });
  } catch (err) {
    notice(err.message, "error");
    return;
  }
  const h = game.headers;
  notice(`${h.White || "?"} \u2013 ${h.Black || "?"} ${h.Result || ""}`.trim());
  Object.assign(state, { start: game.start, moves: game.moves, ply: 0, review: [] });
  await show();
}

function review() {
  state.review = [];
  notice("scoring every move\u2026");
  send({ type: "review", start: state.start, moves: state.moves, seconds: 0.1 });
}

function drawGraph() {
  const svg = $("graph");
  svg.textContent = "";
  const n = Math.max(state.moves.length, 1);
  const x = (i) => (600 * i) / n;
  const y = (v) => 70 - 66 * Math.tanh(Math.max(-100, Math.min(100, v)) / 4);
  const ns = "http://www.w3.org/2000/svg";
  const axis = document.createElementNS(ns, "line");
  Object.entries({ x1: 0, x2: 600, y1: 70, y2: 70, stroke: "#999", "stroke-dasharray": "4 3" })
    .forEach(([k, v]) => axis.setAttribute(k, v));
  svg.appendChild(axis);
  const points = state.review.map((v, i) => (v === undefined ? null : `${x(i)},${y(v)}`)).filter(Boolean);
  if (points.length) {
    const area = document.createElementNS(ns, "polyline");
    area.setAttribute("points", points.join(" "));
    area.setAttribute("fill", "none");
    area.setAttribute("stroke", "#2f6fb0");
    area.setAttribute("stroke-width", "2");
    area.setAttribute("id", "graph-line");
    svg.appendChild(area);
  }
  const cursor = document.createElementNS(ns, "line");
  Object.entries({ x1: x(state.ply), x2: x(state.ply), y1: 0, y2: 140, stroke: "#c33" })
    .forEach(([k, v]) => cursor.setAttribute(k, v));
  svg.appendChild(cursor);
  svg.onclick = (event) => {
    const box = svg.getBoundingClientRect();
    state.ply = Math.round(((event.clientX - box.left) / box.width) * n);
    state.ply = Math.max(0, Math.min(state.moves.length, state.ply));
    show();
  };
}

function step(to) { state.ply = Math.max(0, Math.min(state.moves.length, to)); show(); }

$("first").addEventListener("click", () => step(0));
$("prev").addEventListener("click", () => step(state.ply - 1));
$("next").addEventListener("click", () => step(state.ply + 1));
$("last").addEventListener("click", () => step(state.moves.length));
$("flip").addEventListener("click", () => board.flip());
$("load-fen").addEventListener("click", loadFen);
$("load-pgn").addEventListener("click", loadPgn);
$("review").addEventListener("click", review);
$("toggle").addEventListener("click", () => {
  state.running = !state.running;
  $("toggle").textContent = state.running ? "Stop" : "Start";
  if (state.running) analyse(); else send({ type: "stop" });
});
for (const id of ["multipv", "threads"]) $(id).addEventListener("change", () => { if (state.running) analyse(); });
document.addEventListener("keydown", (event) => {
  if (event.target.tagName === "INPUT" || event.target.tagName === "TEXTAREA") return;
  if (event.key === "ArrowLeft") step(state.ply - 1);
  if (event.key === "ArrowRight") step(state.ply + 1);
});
const initial = new URLSearchParams(location.search).get("fen");
if (initial) state.start = initial;
connect();
show();
