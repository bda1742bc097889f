(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("sample-data").textContent);
  var list = document.getElementById("sample-list");
  var count = document.getElementById("sample-count");
  var text = document.getElementById("filter-text");
  var selects = Array.prototype.slice.call(document.querySelectorAll(".filters select"));
  var PAGE = 100;
  var shown = PAGE;

  selects.forEach(function (sel) {
    var field = sel.getAttribute("data-field");
    var seen = {};
    data.forEach(function (row) { seen[row[field]] = true; });
    Object.keys(seen).sort().forEach(function (value) {
      var opt = document.createElement("option");
      opt.value = value;
      opt.textContent = value;
      sel.appendChild(opt);
    });
    sel.addEventListener("change", function () { shown = PAGE; render(); });
  });
  text.addEventListener("input", function () { shown = PAGE; render(); });

  function matches(row) {
    for (var i = 0; i < selects.length; i++) {
      var want = selects[i].value;
      if (want && String(row[selects[i].getAttribute("data-field")]) !== want) { return false; }
    }
    var needle = text.value.trim().toLowerCase();
    if (!needle) { return true; }
    return [row.q, row.a_prime, row.u, row.rationale, row.u_ref || ""].join("\n").toLowerCase().indexOf(needle) >= 0;
  }

  function el(tag, cls, content) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (content !== undefined) { node.textContent = content; }
    return node;
  }

  function field(parent, name, value) {
    var box = el("div", "field");
    box.appendChild(el("div", "name", name));
    box.appendChild(el("pre", "", value === "" ? "(empty)" : value));
    parent.appendChild(box);
  }

  function card(row) {
    var box = el("article", "sample");
    box.setAttribute("data-task", row.task);
    box.setAttribute("data-label", row.label);
    box.setAttribute("data-genuine", row.genuine);
    var head = el("div", "head");
    head.appendChild(el("span", "", row.model + " · T=" + row.T + " · " + row.task + " · doc " + row.doc_id + " · repeat " + row.repeat));
    head.appendChild(el("span", "badge", row.label || "no label"));
    head.appendChild(el("span", "badge " + String(row.genuine).replace(" ", "-"), "genuine: " + row.genuine));
    box.appendChild(head);
    field(box, "q (question)", row.q);
    field(box, "a' (assistant turn shown)", row.a_prime);
    field(box, "u (user turn)", row.u);
    field(box, "rationale", row.rationale);
    if (row.u_ref !== undefined) {
      field(box, "u_ref (user turn after the unperturbed answer) · " + row.label_ref + " · genuine: " + row.genuine_ref, row.u_ref);
    }
    var det = el("details");
    det.appendChild(el("summary", "", "judge prompt (exact messages)"));
    var pre = el("pre", "", row.prompt || "(none: not judged)");
    var wrap = el("div", "field");
    wrap.appendChild(pre);
    det.appendChild(wrap);
    box.appendChild(det);
    return box;
  }

  function render() {
    var rows = data.filter(matches);
    list.textContent = "";
    rows.slice(0, shown).forEach(function (row) { list.appendChild(card(row)); });
    count.textContent = "Showing " + Math.min(shown, rows.length) + " of " + rows.length + " matching user turns (" + data.length + " in total).";
    if (rows.length > shown) {
      var more = el("button", "more", "Show more");
      more.addEventListener("click", function () { shown += PAGE; render(); });
      list.appendChild(more);
    }
  }

  render();
})();
