// Reads [{"tex": "...", "display": true|false, "where": "..."}] on stdin; renders each with KaTeX
// in strict mode (a warning is an error); prints [{"where", "tex", "error"}] for the failures.
const katex = require("katex");
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const failures = [];
  for (const span of JSON.parse(input)) {
    try {
      katex.renderToString(span.tex, {
        displayMode: span.display,
        throwOnError: true,
        strict: "error",
      });
    } catch (err) {
      failures.push({ where: span.where, tex: span.tex, error: String(err.message || err) });
    }
  }
  process.stdout.write(JSON.stringify(failures));
});
