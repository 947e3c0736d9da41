// compartment dashboard: live search and the relation graph.
//
// Memories are untrusted text. This script never parses HTML: every piece
// of vault data goes into the page through textContent or an attribute
// set with setAttribute, and links are built from ids the server checked.
"use strict";

(function () {
	const page = document.body.dataset.page;
	if (page === "search") liveSearch();
	if (page === "graph") relationGraph();

	// el makes an element with a class and text.
	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls) e.className = cls;
		if (text !== undefined && text !== null) e.textContent = String(text);
		return e;
	}

	function f3(x) { return Number(x || 0).toFixed(3); }

	function memoryLink(id, text) {
		const a = el("a", "hit-text", text);
		if (/^[0-9a-f]{6,32}$/.test(id)) a.setAttribute("href", "/memory/" + id);
		return a;
	}

	// ---- live search ---------------------------------------------------
	function liveSearch() {
		const form = document.getElementById("search-form");
		const results = document.getElementById("results");
		const status = document.getElementById("search-status");
		let timer = 0, ctl = null, generation = 0;

		function params() {
			const p = new URLSearchParams();
			for (const name of ["q", "ns", "tag", "since", "until"]) {
				const v = form.elements[name].value.trim();
				if (v) p.set(name, v);
			}
			if (form.elements.all.checked) p.set("all", "1");
			return p;
		}

		async function run() {
			const p = params();
			history.replaceState(null, "", "/search" + (p.toString() ? "?" + p : ""));
			if (!p.get("q")) {
				results.replaceChildren();
				status.textContent = "Type to search.";
				return;
			}
			if (ctl) ctl.abort();
			ctl = new AbortController();
			const mine = ++generation;
			const started = performance.now();
			let body;
			try {
				const res = await fetch("/api/search?" + p, { signal: ctl.signal, credentials: "same-origin" });
				body = await res.json();
				if (!res.ok) throw new Error(body.error || res.statusText);
			} catch (err) {
				if (err.name === "AbortError") return;
				if (mine === generation) status.textContent = String(err.message || err);
				return;
			}
			if (mine !== generation) return;
			results.replaceChildren(...body.results.map(hit));
			const n = body.results.length;
			const total = Math.round(performance.now() - started);
			status.textContent = n + (n === 1 ? " result" : " results") + " · search " + body.took_ms.toFixed(1) + " ms, " + total + " ms with the round trip";
			status.dataset.count = String(n);
		}

		function hit(h) {
			const li = el("li", "hit");
			const head = el("div", "hit-head");
			head.append(el("span", "score", f3(h.score)), " ", memoryLink(h.id, h.text));
			li.append(head);
			if (h.warning) li.append(el("div", "warning", h.warning));
			const day = (h.created || "").slice(0, 10);
			let meta = h.namespace + " · " + h.kind + " · stored " + day;
			if (h.tags && h.tags.length) meta += " · tags " + h.tags.join(", ");
			li.append(el("div", "meta", meta));
			const e = h.explain;
			if (e) {
				const dl = el("dl", "explain");
				const terms = (e.terms || []).map(t => t.term + (t.via ? "→" + t.via : "") + " (I=" + f3(t.info) + ")").join(", ") || "none";
				const framing = e.framing && e.framing.length ? " (without " + e.framing.join(", ") + ")" : "";
				dl.append(
					el("dt", "", "semantic"), el("dd", "", "cos " + f3(e.cosine) + " → p_vec " + f3(e.p_vec) + ", rank " + e.rank_vec + " (window " + e.window + ")"),
					el("dt", "", "literal"), el("dd", "", e.mode + " match" + framing + ", terms " + terms + " → p_lex " + f3(e.p_lex) + ", rank " + e.rank_lex),
					el("dt", "", "score"), el("dd", "", "evidence " + f3(e.evidence) + " (unaged " + f3(e.unaged_score) + ", vault share " + f3(e.share) + ") × priors (importance " + f3(e.importance_prior) + ", opinion " + f3(e.opinion_prior) + ")"),
				);
				li.append(dl);
			}
			return li;
		}

		function soon() {
			clearTimeout(timer);
			timer = setTimeout(run, 120);
		}
		form.addEventListener("input", soon);
		form.addEventListener("change", soon);
		form.addEventListener("submit", ev => { ev.preventDefault(); clearTimeout(timer); run(); });
	}

	// ---- relation graph ------------------------------------------------
	function relationGraph() {
		const box = document.getElementById("graph");
		const panel = document.getElementById("entity");
		const asOf = box.dataset.asOf || "";
		fetch("/api/graph" + (asOf ? "?as_of=" + encodeURIComponent(asOf) : ""), { credentials: "same-origin" })
			.then(r => r.json())
			.then(g => {
				if (g.error) throw new Error(g.error);
				draw(g);
			})
			.catch(err => { box.textContent = String(err.message || err); });

		function draw(g) {
			const n = g.nodes.length;
			if (n === 0) {
				box.append(el("p", "muted", "No relations" + (asOf ? " valid on " + asOf : "") + " yet: `compartment link` records one."));
				return;
			}
			const side = Math.max(640, Math.ceil(Math.sqrt(n) * 110));
			const pos = layout(n, g.edges, side);
			const NS = "http://www.w3.org/2000/svg";
			const svg = document.createElementNS(NS, "svg");
			svg.setAttribute("viewBox", "0 0 " + side + " " + side);
			svg.setAttribute("role", "img");
			svg.setAttribute("aria-label", n + " entities and " + g.edges.length + " relations");
			const edges = g.edges.map(e => {
				const line = document.createElementNS(NS, "line");
				line.setAttribute("class", "edge");
				line.setAttribute("x1", pos[e.source][0].toFixed(1));
				line.setAttribute("y1", pos[e.source][1].toFixed(1));
				line.setAttribute("x2", pos[e.target][0].toFixed(1));
				line.setAttribute("y2", pos[e.target][1].toFixed(1));
				const t = document.createElementNS(NS, "title");
				t.textContent = g.nodes[e.source].name + " " + e.predicate + " " + g.nodes[e.target].name;
				line.append(t);
				svg.append(line);
				return line;
			});
			const nodes = g.nodes.map((node, i) => {
				const grp = document.createElementNS(NS, "g");
				grp.setAttribute("class", "node");
				grp.setAttribute("tabindex", "0");
				grp.setAttribute("data-name", node.name);
				const c = document.createElementNS(NS, "circle");
				c.setAttribute("cx", pos[i][0].toFixed(1));
				c.setAttribute("cy", pos[i][1].toFixed(1));
				c.setAttribute("r", String(Math.min(4 + Math.sqrt(node.degree) * 2, 14)));
				const label = document.createElementNS(NS, "text");
				label.setAttribute("x", (pos[i][0] + 8).toFixed(1));
				label.setAttribute("y", (pos[i][1] + 4).toFixed(1));
				label.textContent = node.name;
				grp.append(c, label);
				grp.addEventListener("click", () => select(i));
				grp.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); select(i); } });
				return grp;
			});
			svg.append(...nodes);
			box.replaceChildren(svg);

			function select(i) {
				const near = new Set([i]);
				g.edges.forEach((e, k) => {
					const lit = e.source === i || e.target === i;
					edges[k].setAttribute("class", lit ? "edge lit" : "edge");
					if (lit) { near.add(e.source); near.add(e.target); }
				});
				nodes.forEach((grp, k) => grp.setAttribute("class", "node" + (k === i ? " sel" : near.has(k) ? "" : " dim")));
				const h = el("h3", "", g.nodes[i].name);
				h.id = "entity-name";
				const ul = el("ul");
				for (const e of g.edges) {
					if (e.source !== i && e.target !== i) continue;
					const li = el("li");
					li.append(g.nodes[e.source].name + " ", el("span", "pred", e.predicate), " " + g.nodes[e.target].name);
					const valid = [e.valid_from ? "from " + e.valid_from : "", e.valid_to ? "to " + e.valid_to : ""].filter(Boolean).join(" ");
					if (valid) li.append(" ", el("span", "meta", valid));
					if (e.src) { li.append(" "); li.append(memoryLink(e.src, "memory")); }
					ul.append(li);
				}
				panel.replaceChildren(h, ul);
				panel.hidden = false;
			}
		}
	}

	// layout places n nodes in a side × side square: a circle first, then
	// force-directed steps (Fruchterman–Reingold with cooling) while the
	// graph is small enough for the quadratic repulsion to stay quick, then
	// scaled to fill the square, leaving room for the labels on the right.
	function layout(n, edges, side) {
		let pos = [];
		const c = side / 2;
		for (let i = 0; i < n; i++) {
			const a = 2 * Math.PI * i / n;
			pos.push([c + c * Math.cos(a), c + c * Math.sin(a)]);
		}
		const steps = n <= 300 ? 300 : n <= 1200 ? 60 : 0;
		const k = Math.sqrt(side * side / n) * 0.5;
		let temp = side / 8;
		const disp = pos.map(() => [0, 0]);
		for (let s = 0; s < steps; s++) {
			for (const d of disp) { d[0] = 0; d[1] = 0; }
			for (let i = 0; i < n; i++) {
				for (let j = i + 1; j < n; j++) {
					let dx = pos[i][0] - pos[j][0], dy = pos[i][1] - pos[j][1];
					const d2 = Math.max(dx * dx + dy * dy, 0.01);
					const f = k * k / d2;
					dx *= f; dy *= f;
					disp[i][0] += dx; disp[i][1] += dy;
					disp[j][0] -= dx; disp[j][1] -= dy;
				}
			}
			for (const e of edges) {
				if (e.source === e.target) continue;
				const a = pos[e.source], b = pos[e.target];
				const dx = a[0] - b[0], dy = a[1] - b[1];
				const f = Math.hypot(dx, dy) / k;
				disp[e.source][0] -= dx * f; disp[e.source][1] -= dy * f;
				disp[e.target][0] += dx * f; disp[e.target][1] += dy * f;
			}
			for (let i = 0; i < n; i++) {
				// gravity keeps separate components near each other
				disp[i][0] += (c - pos[i][0]) * 0.15;
				disp[i][1] += (c - pos[i][1]) * 0.15;
				const len = Math.max(Math.hypot(disp[i][0], disp[i][1]), 0.01);
				const m = Math.min(len, temp) / len;
				pos[i][0] += disp[i][0] * m;
				pos[i][1] += disp[i][1] * m;
			}
			temp *= 0.98;
		}
		return fit(pos, side);
	}

	// fit scales positions into the square with margins (more on the right,
	// where the labels go), by one factor for both axes, and centres them:
	// a small graph is not blown up into the corners.
	function fit(pos, side) {
		const xs = pos.map(p => p[0]), ys = pos.map(p => p[1]);
		const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
		const left = 30, right = 150, top = 30, bottom = 30;
		const w = side - left - right, h = side - top - bottom;
		const scale = Math.min(w / Math.max(x1 - x0, 1), h / Math.max(y1 - y0, 1), 1.5);
		const ox = left + (w - (x1 - x0) * scale) / 2, oy = top + (h - (y1 - y0) * scale) / 2;
		return pos.map(p => [ox + (p[0] - x0) * scale, oy + (p[1] - y0) * scale]);
	}
})();
