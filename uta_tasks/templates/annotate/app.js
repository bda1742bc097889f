// uta-annotate: the blinded annotation page. It only ever receives the conversation context
// and the candidate user turn of an item, plus this annotator's own answer.
"use strict";

(function () {
  const $ = (id) => document.getElementById(id);
  const params = new URLSearchParams(window.location.search);
  let annotator = (params.get("annotator") || "").trim();
  // An invite link carries the annotator's secret in its fragment (#key=...), which is never
  // sent to the server: keep it for this tab and send it as a bearer token.
  const KEY_STORE = "uta-annotate-key";
  const fromLink = /^#key=([A-Za-z0-9_-]+)$/.exec(window.location.hash);
  if (fromLink) {
    window.sessionStorage.setItem(KEY_STORE, fromLink[1]);
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  const key = window.sessionStorage.getItem(KEY_STORE);
  const labelKeys = {};
  let item = null;
  let answered = 0;
  let saving = Promise.resolve();
  let pendingSaves = 0;

  function setStatus(text, kind) {
    const status = $("status");
    status.textContent = text;
    status.className = kind || "";
  }

  async function api(path, options) {
    const request = Object.assign({}, options || {});
    if (key) {
      request.headers = Object.assign({}, request.headers || {}, { Authorization: `Bearer ${key}` });
    }
    const response = await fetch(path, request);
    const data = await response.json();
    if (!response.ok) {
      const error = new Error(data.error || response.statusText);
      error.needName = data.need_name === true;
      throw error;
    }
    return data;
  }

  function showProgress() {
    if (item) {
      $("progress").textContent = `${annotator} · item ${item.position + 1} of ${item.total} · ${answered} answered`;
    }
  }

  function showAnswer() {
    const answer = item.answer || {};
    document.querySelectorAll("button.label").forEach((button) => {
      button.classList.toggle("selected", button.dataset.label === answer.label);
      button.setAttribute("aria-pressed", String(button.dataset.label === answer.label));
    });
    document.querySelectorAll("button.genuine").forEach((button) => {
      const selected = answer.genuine !== undefined && answer.genuine !== null &&
        String(answer.genuine) === button.dataset.genuine;
      button.classList.toggle("selected", selected);
      button.setAttribute("aria-pressed", String(selected));
    });
    $("prev").disabled = item.position === 0;
    $("next").disabled = item.position >= item.total - 1;
  }

  function showItem() {
    const conversation = $("conversation");
    conversation.replaceChildren();
    for (const turn of item.context) {
      const box = document.createElement("div");
      box.className = `turn ${turn.role}`;
      const role = document.createElement("div");
      role.className = "role";
      role.textContent = turn.role;
      const content = document.createElement("div");
      content.className = "content";
      content.textContent = turn.content;
      box.append(role, content);
      conversation.append(box);
    }
    const candidate = $("candidate");
    candidate.textContent = item.user_turn;
    candidate.classList.toggle("empty", item.user_turn.length === 0);
    showAnswer();
    showProgress();
    document.body.dataset.position = String(item.position);
  }

  async function load(position) {
    document.body.dataset.state = "loading";
    const query = `annotator=${encodeURIComponent(annotator)}&position=${position}`;
    item = await api(`/api/item?${query}`);
    window.history.replaceState(null, "", `/?annotator=${encodeURIComponent(annotator)}#${item.position + 1}`);
    showItem();
    document.body.dataset.state = "ready";
  }

  function save(changes) {
    const position = item.position;
    pendingSaves += 1;
    document.body.dataset.state = "saving";
    setStatus("Saving…", "");
    if (item) {
      item.answer = Object.assign({}, item.answer || {}, changes);
      showAnswer();
    }
    saving = saving.then(async () => {
      try {
        const body = JSON.stringify(Object.assign({ annotator, position }, changes));
        const data = await api("/api/answer", { method: "POST", headers: { "Content-Type": "application/json" }, body });
        answered = data.answered;
        // Only the last of a burst of saves (a label key, then y) speaks: an earlier reply
        // would show the answer without the change still on its way, and "Saved" too soon.
        const last = pendingSaves === 1;
        if (last && item && item.position === position) {
          item.answer = data.answer;
          showAnswer();
        }
        showProgress();
        if (last) {
          setStatus("Saved", "ok");
        }
      } catch (error) {
        setStatus(`Not saved: ${error.message}`, "error");
      } finally {
        pendingSaves -= 1;
        if (pendingSaves === 0) {
          document.body.dataset.state = "ready";
        }
      }
    });
    return saving;
  }

  async function move(step) {
    if (!item) {
      return;
    }
    const target = item.position + step;
    if (target < 0 || target >= item.total) {
      return;
    }
    await saving;
    try {
      await load(target);
    } catch (error) {
      setStatus(error.message, "error");
    }
  }

  function onKey(event) {
    if (!item || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA") {
      return;
    }
    const key = event.key;
    if (labelKeys[key]) {
      save({ label: labelKeys[key] });
    } else if (key === "y" || key === "Y") {
      save({ genuine: true });
    } else if (key === "n" || key === "N") {
      save({ genuine: false });
    } else if (key === "ArrowRight" || key === "Enter") {
      move(1);
    } else if (key === "ArrowLeft") {
      move(-1);
    } else {
      return;
    }
    event.preventDefault();
  }

  async function start() {
    document.querySelectorAll("button.label").forEach((button, index) => {
      labelKeys[String(index + 1)] = button.dataset.label;
      button.addEventListener("click", () => save({ label: button.dataset.label }));
    });
    document.querySelectorAll("button.genuine").forEach((button) => {
      button.addEventListener("click", () => save({ genuine: button.dataset.genuine === "true" }));
    });
    $("prev").addEventListener("click", () => move(-1));
    $("next").addEventListener("click", () => move(1));
    if (!annotator && !key) {
      $("login").hidden = false;
      document.body.dataset.state = "login";
      $("annotator-name").focus();
      return;
    }
    let session;
    try {
      session = await api(`/api/session?annotator=${encodeURIComponent(annotator)}`);
    } catch (error) {
      if (error.needName) {  // the server's own link (a token, not an invite): ask for a name
        $("login").hidden = false;
        document.body.dataset.state = "login";
        $("annotator-name").focus();
        return;
      }
      setStatus(error.message, "error");
      document.body.dataset.state = "error";
      return;
    }
    $("app").hidden = false;
    document.addEventListener("keydown", onKey);
    try {
      annotator = session.annotator;
      answered = session.answered;
      const fromHash = parseInt(window.location.hash.slice(1), 10) - 1;
      const position = fromHash >= 0 && fromHash < session.total ? fromHash : session.position;
      await load(position);
    } catch (error) {
      setStatus(error.message, "error");
      document.body.dataset.state = "error";
    }
  }

  document.addEventListener("DOMContentLoaded", start);
})();
