// Copies 3d-force-graph's minified UMD bundle into the Python package, with licenses.
//
//   cd scripts/vendor-viz && npm ci && npm run vendor && rm -rf node_modules
//
// The bundle is self-contained (three.js, d3-force-3d, ngraph and the rest are
// inside it), so the page needs no CDN. Every package npm installed for it is
// listed in THIRD_PARTY_LICENSES.txt with its license text.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const target = join(here, "..", "..", "orma_proxy", "server", "static", "viz", "vendor");
mkdirSync(target, { recursive: true });

const graph = join(modules, "3d-force-graph");
copyFileSync(join(graph, "dist", "3d-force-graph.min.js"), join(target, "3d-force-graph.min.js"));
copyFileSync(join(graph, "LICENSE"), join(target, "3d-force-graph.LICENSE"));

function packages() {
  const found = [];
  for (const name of readdirSync(modules).sort()) {
    if (name.startsWith(".")) continue;
    const dirs = name.startsWith("@")
      ? readdirSync(join(modules, name)).sort().map((sub) => join(name, sub))
      : [name];
    for (const dir of dirs) found.push(join(modules, dir));
  }
  return found;
}

const sections = [];
for (const dir of packages()) {
  const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)/i.test(f));
  if (!file) throw new Error(`${meta.name} ships no license file`);
  const text = readFileSync(join(dir, file), "utf8").trim();
  sections.push(`${meta.name} ${meta.version} (${meta.license})\n${"-".repeat(60)}\n${text}\n`);
}
const header =
  "Licenses of 3d-force-graph and of the packages npm installed with it, whose code\n" +
  "its UMD bundle (3d-force-graph.min.js) contains.\n\n";
writeFileSync(join(target, "THIRD_PARTY_LICENSES.txt"), header + sections.join("\n"));
console.log(`vendored ${sections.length} packages into ${target}`);
