/* The search opened from a file (file://): Sphinx fetches each hit's page for a snippet,
   which browsers refuse there (an error per hit in the console). Opened from a file, the
   hits are listed without snippets, and the search page says how to serve the folder; over
   http (python -m http.server) the snippets show. */
(function () {
  "use strict";
  if (window.location.protocol !== "file:") return;
  // DOCUMENTATION_OPTIONS is a global const of documentation_options.js (not a property
  // of window); searchtools.js reads SHOW_SEARCH_SUMMARY as it lists each hit
  function noSummaries() {
    if (typeof DOCUMENTATION_OPTIONS !== "undefined") {
      DOCUMENTATION_OPTIONS.SHOW_SEARCH_SUMMARY = false;
    }
  }
  noSummaries();

  function note() {
    noSummaries();
    var results = document.getElementById("search-results");
    if (!results || document.querySelector(".gx-search-note")) return;
    var p = document.createElement("p");
    p.className = "gx-search-note";
    p.textContent = "This site is open as a file: the search lists the pages it finds, " +
      "without the snippet of each (a browser does not let a page read other files). " +
      "For snippets, serve the folder: python -m http.server -d docs/_build/html " +
      "(from the repository), then open http://localhost:8000/search.html.";
    results.parentNode.insertBefore(p, results);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", note);
  } else {
    note();
  }
})();
