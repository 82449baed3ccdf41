// What every page shares: JSON requests to the server and the notice line.
"use strict";

async function postJson(url, data) {
  const response = await fetch(url, {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(data),
  });
  let body;
  try { body = await response.json(); } catch (err) { body = { error: `the server answered ${response.status}` }; }
  if (!response.ok) {
    const error = new Error(body.error || `the server answered ${response.status}`);
    error.engineDied = Boolean(body.engine_died);
    throw error;
  }
  return body;
}

function notice(text, kind) {
  const el = document.getElementById("notice");
  if (!el) return;
  el.textContent = text || "";
  el.className = "notice" + (kind === "error" ? " error" : "") + (text ? "" : " hidden");
}

function el(tag, attrs = {}, text = "") {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
}

function downloadText(name, text) {
  const link = el("a", { download: name, href: URL.createObjectURL(new Blob([text], { type: "application/x-chess-pgn" })) });
  document.body.appendChild(link);
  link.click();
  link.remove();
}

async function copyText(text, textarea) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (err) {
    textarea.select();
    return document.execCommand("copy");
  }
}

// Move list: numbered SAN, each move clickable when onPick is given.
function renderMoves(container, sans, startFen, current, onPick) {
  container.textContent = "";
  const parts = startFen.split(" ");
  let number = Number(parts[5] || 1);
  let white = parts[1] !== "b";
  sans.forEach((san, i) => {
    if (white || i === 0) container.appendChild(document.createTextNode(`${number}.${white ? "" : ".."} `));
    const span = el("span", { class: "move" + (i + 1 === current ? " current" : ""), "data-ply": String(i + 1) }, san);
    if (onPick) span.addEventListener("click", () => onPick(i + 1));
    container.appendChild(span);
    container.appendChild(document.createTextNode(" "));
    if (!white) number += 1;
    white = !white;
  });
}
