// Kestrel's board component: a CSS grid of squares, pieces as Unicode glyphs, moves by click or drag.
// It knows no rules: the server sends the legal moves (UCI) and the board offers only those.
"use strict";

const GLYPHS = { k: "\u265A", q: "\u265B", r: "\u265C", b: "\u265D", n: "\u265E", p: "\u265F" };
const FILES = "abcdefgh";

function parseFenPieces(fen) {
  const pieces = {};
  const rows = fen.split(" ")[0].split("/");
  rows.forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      pieces[FILES[f] + (8 - r)] = { color: ch === ch.toUpperCase() ? "w" : "b", role: ch.toLowerCase() };
      f += 1;
    }
  });
  return pieces;
}

class ChessBoard {
  // options: onMove(uci) is called with a legal move the user made; small: a board without coordinates.
  constructor(el, options = {}) {
    this.el = el;
    this.onMove = options.onMove || (() => {});
    this.small = Boolean(options.small);
    this.orientation = "w";
    this.state = { fen: "8/8/8/8/8/8/8/8 w - - 0 1", legal: [], last: null, check: null, movable: null };
    this.selected = null;
    this.drag = null;
    el.classList.add("board");
    if (this.small) el.classList.add("small");
    el.addEventListener("pointerdown", (e) => this.pointerDown(e));
    window.addEventListener("pointermove", (e) => this.pointerMove(e));
    window.addEventListener("pointerup", (e) => this.pointerUp(e));
    this.render();
  }

  set(state) {
    this.state = Object.assign({}, this.state, state);
    this.selected = null;
    this.closePromotion();
    this.render();
  }

  flip() { this.orientation = this.orientation === "w" ? "b" : "w"; this.render(); }

  setOrientation(color) { this.orientation = color; this.render(); }

  // Legal moves of the side that may move now, as from -> [uci...].
  destinations() {
    const movable = this.state.movable;
    const dests = {};
    if (!movable) return dests;
    const pieces = parseFenPieces(this.state.fen);
    for (const uci of this.state.legal) {
      const from = uci.slice(0, 2);
      const piece = pieces[from];
      if (!piece || (movable !== "both" && piece.color !== movable)) continue;
      (dests[from] = dests[from] || []).push(uci);
    }
    return dests;
  }

  squareOrder() {
    const squares = [];
    for (let row = 0; row < 8; row++) {
      for (let col = 0; col < 8; col++) {
        const file = this.orientation === "w" ? col : 7 - col;
        const rank = this.orientation === "w" ? 8 - row : row + 1;
        squares.push(FILES[file] + rank);
      }
    }
    return squares;
  }

  render() {
    const pieces = parseFenPieces(this.state.fen);
    const dests = this.destinations();
    const targets = new Set((this.selected && dests[this.selected] || []).map((u) => u.slice(2, 4)));
    const last = this.state.last;
    this.el.textContent = "";
    // For tests and tools that read the board: what it shows and who may move.
    this.el.dataset.fen = this.state.fen;
    this.el.dataset.movable = this.state.movable || "";
    this.squareOrder().forEach((square, i) => {
      const div = document.createElement("div");
      const fileIndex = FILES.indexOf(square[0]);
      const rank = Number(square[1]);
      div.className = "sq " + ((fileIndex + rank) % 2 === 0 ? "light" : "dark");
      div.dataset.square = square;
      if (last && (last.slice(0, 2) === square || last.slice(2, 4) === square)) div.classList.add("last");
      if (this.state.check === square) div.classList.add("check");
      if (this.selected === square) div.classList.add("selected");
      const piece = pieces[square];
      if (targets.has(square)) div.classList.add(piece ? "capture-dest" : "dest");
      if (piece) {
        const span = document.createElement("span");
        span.className = `piece ${piece.color}`;
        span.dataset.piece = piece.color + piece.role;
        span.textContent = GLYPHS[piece.role] + "\uFE0E";
        div.appendChild(span);
        if (dests[square]) div.classList.add("movable");
      }
      if (!this.small) {
        if (i % 8 === 0) div.appendChild(this.coord("rank", String(rank)));
        if (i >= 56) div.appendChild(this.coord("file", square[0]));
      }
      this.el.appendChild(div);
    });
  }

  coord(kind, text) {
    const span = document.createElement("span");
    span.className = "coord " + kind;
    span.textContent = text;
    return span;
  }

  squareAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    const sq = hit && hit.closest ? hit.closest(".sq") : null;
    return sq && this.el.contains(sq) ? sq.dataset.square : null;
  }

  pointerDown(e) {
    if (e.button !== undefined && e.button !== 0) return;
    const target = e.target.closest(".sq");
    if (!target || this.promotionOpen) return;
    const square = target.dataset.square;
    const dests = this.destinations();
    if (this.selected && (dests[this.selected] || []).some((u) => u.slice(2, 4) === square)) {
      this.tryMove(this.selected, square);
      return;
    }
    if (dests[square]) {
      this.selected = square;
      this.render();
      this.drag = { from: square, startX: e.clientX, startY: e.clientY, ghost: null };
      e.preventDefault();
    } else if (this.selected) {
      this.selected = null;
      this.render();
    }
  }

  pointerMove(e) {
    const drag = this.drag;
    if (!drag) return;
    if (!drag.ghost && Math.hypot(e.clientX - drag.startX, e.clientY - drag.startY) < 4) return;
    if (!drag.ghost) {
      const piece = this.el.querySelector(`[data-square="${drag.from}"] .piece`);
      if (!piece) return;
      drag.ghost = piece.cloneNode(true);
      drag.ghost.classList.add("ghost");
      drag.ghost.style.fontSize = getComputedStyle(piece).fontSize;
      document.body.appendChild(drag.ghost);
      piece.classList.add("dragging");
    }
    drag.ghost.style.left = `${e.clientX}px`;
    drag.ghost.style.top = `${e.clientY}px`;
  }

  pointerUp(e) {
    const drag = this.drag;
    this.drag = null;
    if (!drag || !drag.ghost) return;
    drag.ghost.remove();
    const square = this.squareAt(e.clientX, e.clientY);
    if (square && square !== drag.from) this.tryMove(drag.from, square);
    else this.render();
  }

  tryMove(from, to) {
    const moves = (this.destinations()[from] || []).filter((u) => u.slice(2, 4) === to);
    if (!moves.length) { this.selected = null; this.render(); return; }
    if (moves.length === 1 && moves[0].length === 4) { this.finish(moves[0]); return; }
    this.openPromotion(from, to, moves.map((u) => u[4]));
  }

  finish(uci) {
    this.selected = null;
    // Show the move at once; the page's next set() brings the position the server confirms.
    const pieces = parseFenPieces(this.state.fen);
    this.state.last = uci;
    this.state.movable = null;
    this.render();
    const from = this.el.querySelector(`[data-square="${uci.slice(0, 2)}"] .piece`);
    const to = this.el.querySelector(`[data-square="${uci.slice(2, 4)}"]`);
    if (from && to && pieces[uci.slice(0, 2)]) {
      const old = to.querySelector(".piece");
      if (old) old.remove();
      to.appendChild(from);
    }
    this.onMove(uci);
  }

  openPromotion(from, to, roles) {
    const color = parseFenPieces(this.state.fen)[from].color;
    const picker = document.createElement("div");
    picker.className = "promotion";
    picker.setAttribute("role", "dialog");
    picker.setAttribute("aria-label", "choose a piece for the promotion");
    for (const role of ["q", "r", "b", "n"].filter((r) => roles.includes(r))) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = `piece ${color}`;
      button.dataset.promote = role;
      button.title = { q: "queen", r: "rook", b: "bishop", n: "knight" }[role];
      button.textContent = GLYPHS[role] + "\uFE0E";
      button.addEventListener("click", () => { this.closePromotion(); this.finish(from + to + role); });
      picker.appendChild(button);
    }
    const cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "cancel";
    cancel.textContent = "\u00D7";
    cancel.title = "cancel";
    cancel.addEventListener("click", () => { this.closePromotion(); this.selected = null; this.render(); });
    picker.appendChild(cancel);
    this.promotionOpen = picker;
    this.el.appendChild(picker);
  }

  closePromotion() {
    if (this.promotionOpen) { this.promotionOpen.remove(); this.promotionOpen = null; }
  }
}

window.ChessBoard = ChessBoard;
