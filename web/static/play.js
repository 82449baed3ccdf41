// The play page: a game against Kestrel. The page keeps the moves and the clocks; the server checks every
// move, says what is legal and whether the game is over, and lets the engine answer.
"use strict";

const game = {
  start: null, moves: [], player: "w", level: { kind: "elo", value: 1500 }, clock: null, movetime: 1,
  time: { w: 0, b: 0 }, over: null, thinking: false, token: 0, position: null, tickAt: 0, tags: {},
};
const board = new ChessBoard(document.getElementById("board"), { onMove: playerMove });
const $ = (id) => document.getElementById(id);

function engineColor() { return game.player === "w" ? "b" : "w"; }

function readSettings() {
  const side = $("side").value;
  game.player = side === "random" ? (Math.random() < 0.5 ? "w" : "b") : side;
  const kind = $("level-kind").value;
  game.level = kind === "full" ? { kind } : { kind, value: Math.round(Number($("level-value").value)) };
  if ($("use-clock").checked) {
    const seconds = Number($("clock-minutes").value) * 60;
    game.clock = { base: seconds, increment: Number($("clock-increment").value) };
  } else {
    game.clock = null;
    game.movetime = Number($("move-time").value);
  }
  const fen = $("start-fen").value.trim();
  game.start = fen || null;
}

// The ranges come from the server (/api/levels), which takes them from the engine's option table.
const levelRanges = { elo: null, skill: null };

function levelLimits() {
  const kind = $("level-kind").value;
  const input = $("level-value");
  input.disabled = kind === "full";
  const range = levelRanges[kind];
  if (!range) return;
  [input.min, input.max] = range;
  const value = Number(input.value);
  if (value < range[0] || value > range[1]) input.value = kind === "elo" ? Math.min(Math.max(1500, range[0]), range[1]) : range[0];
}

async function loadLevelRanges() {
  try {
    const response = await fetch("/api/levels");
    Object.assign(levelRanges, await response.json());
    levelLimits();
  } catch (err) {
    notice(`cannot read the level ranges: ${err.message}`, "error");
  }
}

async function newGame() {
  readSettings();
  game.token += 1;
  game.moves = [];
  game.over = null;
  game.thinking = false;
  game.tags = {};
  if (game.clock) game.time = { w: game.clock.base * 1000, b: game.clock.base * 1000 };
  board.setOrientation(game.player);
  notice("");
  const ok = await refresh();
  if (ok && !game.over && game.position.turn === engineColor()) engineMove();
}

function names() {
  const engine = `Kestrel (${game.level.kind === "full" ? "full strength" : game.level.kind === "elo" ? "Elo " + game.level.value : "Skill " + game.level.value})`;
  return game.player === "w" ? { White: "You", Black: engine } : { White: engine, Black: "You" };
}

// Ask the server about the game so far; false when it refused it (the message is shown).
async function refresh(extra = {}) {
  const tags = Object.assign(names(), game.tags);
  if (game.clock) tags.TimeControl = `${Math.round(game.clock.base)}+${game.clock.increment}`;
  try {
    game.position = await postJson("/api/position", Object.assign({ start: game.start, moves: game.moves, tags }, extra));
  } catch (err) {
    notice(err.message, "error");
    return false;
  }
  const p = game.position;
  if (p.outcome && !game.over) {
    game.over = p.outcome;
    game.tags = { Result: p.outcome.result, Termination: p.outcome.reason };
  }
  const myTurn = !game.over && !game.thinking && p.turn === game.player;
  board.set({ fen: p.fen, legal: p.legal, last: p.last, check: p.check, movable: myTurn ? game.player : null });
  renderMoves($("moves"), p.san, p.start, p.san.length);
  $("pgn").value = p.pgn;
  showStatus();
  return true;
}

function showStatus() {
  const p = game.position;
  let text;
  if (game.over) text = `${game.over.result} \u2014 ${game.over.reason}`;
  else if (game.thinking) text = "Kestrel is thinking\u2026";
  else text = p && p.turn === game.player ? "Your move" : "";
  $("status").textContent = text;
  $("status").dataset.result = game.over ? game.over.result : "";
}

async function playerMove(uci) {
  if (game.over || game.thinking) return;
  addIncrement(game.player);
  game.moves.push(uci);
  const ok = await refresh();
  if (!ok) { game.moves.pop(); await refresh(); return; }
  if (!game.over) engineMove();
}

function addIncrement(color) {
  if (game.clock && game.moves.length > 0) game.time[color] += game.clock.increment * 1000;
}

async function engineMove(retried = false) {
  const token = ++game.token;
  game.thinking = true;
  showStatus();
  const request = { start: game.start, moves: game.moves, level: game.level };
  if (!game.clock) request.movetime = game.movetime;
  if (game.clock) {
    request.clock = { white: Math.max(0, game.time.w / 1000), black: Math.max(0, game.time.b / 1000),
                      increment: game.clock.increment };
  }
  let answer;
  try {
    answer = await postJson("/api/move", request);
  } catch (err) {
    if (token !== game.token) return;
    game.thinking = false;
    if (err.engineDied && !retried) {
      notice(`The engine failed: ${err.message}. Restarted; it plays on.`, "error");
      engineMove(true);
      return;
    }
    notice(err.message, "error");
    await refresh();
    return;
  }
  if (token !== game.token || game.over) return;
  game.thinking = false;
  addIncrement(engineColor());
  game.moves.push(answer.move);
  await refresh();
}

function tick() {
  const now = performance.now();
  const elapsed = now - game.tickAt;
  game.tickAt = now;
  if (game.clock && game.position && !game.over && game.moves.length > 0) {
    const side = game.position.turn;
    game.time[side] -= elapsed;
    if (game.time[side] <= 0) {
      game.time[side] = 0;
      game.token += 1;
      game.thinking = false;
      refresh({ flag: side });
    }
  }
  drawClocks();
}

function formatTime(ms) {
  const total = Math.max(0, ms) / 1000;
  const minutes = Math.floor(total / 60);
  const seconds = total - minutes * 60;
  return total < 10 ? `${minutes}:${seconds.toFixed(1).padStart(4, "0")}` : `${minutes}:${String(Math.floor(seconds)).padStart(2, "0")}`;
}

function drawClocks() {
  const bottom = board.orientation;
  const top = bottom === "w" ? "b" : "w";
  const label = { w: "White", b: "Black" };
  for (const [id, color] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const box = $(id);
    box.querySelector(".who").textContent = label[color] + (color === game.player ? " (you)" : " (Kestrel)");
    box.querySelector(".time").textContent = game.clock ? formatTime(game.time[color]) : "\u2013";
    box.dataset.color = color;
    const running = game.clock && game.position && !game.over && game.moves.length > 0 && game.position.turn === color;
    box.classList.toggle("running", Boolean(running));
    box.classList.toggle("flagged", Boolean(game.clock && game.time[color] <= 0));
  }
}

async function takeback() {
  if (!game.moves.length) return;
  game.token += 1;
  game.thinking = false;
  game.over = null;
  game.tags = {};
  game.moves.pop();
  // Back to a position where it is the player's move.
  const startTurn = (game.start || "w w").split(" ")[1];
  const turnAfter = (n) => (n % 2 === 0 ? startTurn : startTurn === "w" ? "b" : "w");
  if (turnAfter(game.moves.length) !== game.player && game.moves.length) game.moves.pop();
  await refresh();
  if (!game.over && game.position.turn === engineColor()) engineMove();
}

async function resign() {
  if (game.over) return;
  game.token += 1;
  game.thinking = false;
  const loser = game.player === "w" ? "White" : "Black";
  game.over = { result: game.player === "w" ? "0-1" : "1-0", reason: `${loser} resigns` };
  game.tags = { Result: game.over.result, Termination: game.over.reason };
  await refresh();
}

async function offerDraw() {
  if (game.over || !game.position) return;
  try {
    const answer = await postJson("/api/draw", { start: game.start, moves: game.moves, engine_color: engineColor() });
    notice(answer.reason);
    if (answer.accepted) {
      game.token += 1;
      game.thinking = false;
      game.over = { result: "1/2-1/2", reason: "draw by agreement" };
      game.tags = { Result: game.over.result, Termination: game.over.reason };
      await refresh();
    }
  } catch (err) {
    notice(err.message, "error");
  }
}

$("level-kind").addEventListener("change", levelLimits);
$("new-game").addEventListener("click", newGame);
$("takeback").addEventListener("click", takeback);
$("flip").addEventListener("click", () => { board.flip(); drawClocks(); });
$("resign").addEventListener("click", resign);
$("draw").addEventListener("click", offerDraw);
$("copy-pgn").addEventListener("click", async () => {
  notice((await copyText($("pgn").value, $("pgn"))) ? "PGN copied" : "select the PGN and copy it");
});
$("download-pgn").addEventListener("click", () => downloadText("kestrel-game.pgn", $("pgn").value));
game.tickAt = performance.now();
setInterval(tick, 100);
loadLevelRanges();
newGame();
