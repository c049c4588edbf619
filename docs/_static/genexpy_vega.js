/* Draw the site's charts offline: every element .gx-vega holds its Vega spec as JSON in a
   <script type="application/json"> child; vega-embed (from _static/vendor/vega-bundle.js,
   bundled with the site by vl-convert) draws it as SVG next to it. No network is used. */
(function () {
  "use strict";
  var OPTIONS = {
    mode: "vega",
    renderer: "svg",
    // save as SVG / PNG stays; the source, the compiled spec and the online editor go
    actions: { export: true, source: false, compiled: false, editor: false },
  };

  function fail(el, err) {
    var p = document.createElement("p");
    p.className = "gx-vega-error";
    p.textContent = "This chart could not be drawn: " + err;
    el.appendChild(p);
  }

  function draw(el) {
    if (el.getAttribute("data-gx-drawn")) return;
    el.setAttribute("data-gx-drawn", "1");
    var script = el.querySelector("script.gx-vega-spec");
    if (!script) return;
    var spec;
    try {
      spec = JSON.parse(script.textContent);
    } catch (err) {
      fail(el, err);
      return;
    }
    // the specs are compiled for Vega 5 and name it in $schema; the bundled Vega is newer
    // (v6), which draws them all the same but logs "The input spec uses Vega v5, but the
    // current version of Vega is v6" for each chart. The mode is given (vega): no $schema
    if (typeof spec.$schema === "string" && /\/schema\/vega\//.test(spec.$schema)) {
      delete spec.$schema;
    }
    var target = document.createElement("div");
    target.className = "gx-vega-view";
    el.appendChild(target);
    window.vegaEmbed(target, spec, OPTIONS).catch(function (err) { fail(el, err); });
  }

  function drawAll() {
    var charts = document.querySelectorAll(".gx-vega");
    if (!window.vegaEmbed) {
      charts.forEach(function (el) { fail(el, "the Vega library did not load"); });
      return;
    }
    charts.forEach(draw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", drawAll);
  } else {
    drawAll();
  }
})();
