// scigate review: keyboard-driven verdicts, each saved at once (POST /api/verdict).
// Text from the database is never inserted as HTML: only textContent and attributes.
(function () {
  "use strict";
  const csrf = document.querySelector('meta[name="csrf-token"]').content;
  const status = document.getElementById("status");

  function say(text, bad) {
    if (!status) return;
    status.textContent = text;
    status.className = "status" + (bad ? " bad" : " good");
  }

  function typing(ev) {
    const t = ev.target;
    return t && (t.tagName === "TEXTAREA" || t.tagName === "INPUT" || t.tagName === "SELECT");
  }

  // ---- queue page ----
  const queue = document.getElementById("queue");
  if (queue) {
    const rows = Array.from(queue.querySelectorAll("tbody tr[data-id]"));
    let at = -1;
    const focus = (i) => {
      if (!rows.length) return;
      at = Math.max(0, Math.min(rows.length - 1, i));
      rows.forEach((r, k) => r.classList.toggle("cur", k === at));
      rows[at].scrollIntoView({ block: "nearest" });
    };
    document.addEventListener("keydown", (ev) => {
      if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      if (ev.key === "j" || ev.key === "ArrowDown") { focus(at + 1); ev.preventDefault(); }
      else if (ev.key === "k" || ev.key === "ArrowUp") { focus(at - 1); ev.preventDefault(); }
      else if (ev.key === "Enter" && at >= 0) { rows[at].querySelector("a.open").click(); }
      else if (ev.key === "/") { document.getElementById("f-q").focus(); ev.preventDefault(); }
    });
  }

  // ---- item page ----
  const panel = document.getElementById("review");
  if (!panel) return;
  const item = panel.dataset.item;
  const crits = Array.from(panel.querySelectorAll(".criterion"));
  let cur = 0;

  function select(i, quiet) {
    cur = Math.max(0, Math.min(crits.length - 1, i));
    crits.forEach((c, k) => c.classList.toggle("cur", k === cur));
    crits[cur].focus({ preventScroll: !!quiet });
  }

  function chosen(c) {
    const on = c.querySelector(".v.on");
    return on ? on.dataset.verdict : "";
  }

  async function save(c, verdict) {
    const note = c.querySelector(".note").value;
    const body = { item_id: item, criterion: c.dataset.criterion, verdict: verdict, note: note };
    say("saving…");
    let res, data;
    try {
      res = await fetch("/api/verdict", {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
        body: JSON.stringify(body),
      });
      data = await res.json();
    } catch (e) {
      say("not saved: " + e, true);
      return false;
    }
    if (!res.ok || !data.ok) {
      say("not saved: " + (data && data.error ? data.error : res.status), true);
      return false;
    }
    c.querySelectorAll(".v").forEach((b) => {
      const on = b.dataset.verdict === verdict;
      b.classList.toggle("on", on);
      b.setAttribute("aria-pressed", on ? "true" : "false");
    });
    const dec = document.getElementById("decision");
    dec.textContent = data.decision;
    dec.className = "dec dec-" + data.decision;
    say("saved " + c.dataset.criterion + " = " + verdict);
    c.classList.add("saved");
    return true;
  }

  crits.forEach((c, k) => {
    c.addEventListener("click", () => { cur = k; crits.forEach((x, j) => x.classList.toggle("cur", j === k)); });
    c.querySelectorAll(".v").forEach((b) => b.addEventListener("click", (ev) => {
      ev.stopPropagation();
      cur = k;
      save(c, b.dataset.verdict);
    }));
    const note = c.querySelector(".note");
    note.addEventListener("change", () => {
      const v = chosen(c);
      if (v) save(c, v); else say("choose yes, no or unsure first: the note is saved with it", true);
    });
    note.addEventListener("keydown", (ev) => {
      if (ev.key === "Escape" || (ev.key === "Enter" && !ev.shiftKey)) {
        ev.preventDefault();
        note.blur();
        c.focus();
      }
    });
  });
  select(0, true);  // the page opens at its top

  document.addEventListener("keydown", (ev) => {
    if (typing(ev) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const c = crits[cur];
    const key = ev.key;
    if (key === "j" || key === "ArrowDown") { select(cur + 1); ev.preventDefault(); }
    else if (key === "k" || key === "ArrowUp") { select(cur - 1); ev.preventDefault(); }
    else if (/^[1-9]$/.test(key) && +key <= crits.length) { select(+key - 1); }
    else if (key === "y" || key === "n" || key === "u") {
      const verdict = { y: "yes", n: "no", u: "unsure" }[key];
      save(c, verdict).then((ok) => { if (ok && cur < crits.length - 1) select(cur + 1); });
      ev.preventDefault();
    }
    else if (key === "e") { c.querySelector(".note").focus(); ev.preventDefault(); }
    else if (key === "]") { const a = document.getElementById("next"); if (a) a.click(); }
    else if (key === "[") { const a = document.getElementById("prev"); if (a) a.click(); }
    else if (key === "g") { document.getElementById("back").click(); }
  });
})();
