// Open a page written by `kg viz` in headless Chromium and measure its first view, as a
// person sees it before touching anything: which of the best-supported nodes have a label
// drawn, at what size on screen, whether those labels overlap, and which edges are drawn.
// Environment: KG_VIZ_FILE (the HTML), KG_SCREENSHOT (PNG path), KG_TOP (nodes checked,
// default 30), CHROMIUM. Prints one JSON line.
import { launchChromium, newPage } from './chromium.mjs';
import { pathToFileURL } from 'node:url';

const env = process.env;
const top = Number(env.KG_TOP || 30);
const browser = await launchChromium();
const errors = [];
try {
  const page = await newPage(browser, errors);
  await page.goto(pathToFileURL(env.KG_VIZ_FILE).href);
  await page.waitForFunction(() => window.kgViz !== undefined, null, { timeout: 30000 });
  await page.waitForTimeout(800);  // animations and label placement settle
  await page.screenshot({ path: env.KG_SCREENSHOT });
  const seen = await page.evaluate((top) => {
    const { cy, data } = window.kgViz;
    const zoom = cy.zoom();
    // Cytoscape draws a label when font-size times the zoom rounded up to a power of two
    // reaches min-zoomed-font-size; on screen it is font-size times the zoom.
    const step = Math.pow(2, Math.ceil(Math.log2(zoom)));
    const drawnAt = (node) => parseFloat(node.style('font-size')) * step >=
      (parseFloat(node.style('min-zoomed-font-size')) || 0);
    const ext = cy.extent();  // the model area on screen
    const box = cy.container().getBoundingClientRect();
    const onScreen = (bb) => bb.x1 >= ext.x1 && bb.x2 <= ext.x2 && bb.y1 >= ext.y1 && bb.y2 <= ext.y2;
    const ranked = data.nodes.slice().sort((a, b) => a.rank - b.rank).slice(0, top);
    const nodes = ranked.map((n) => {
      const node = cy.getElementById(n.id);
      if (node.empty() || !node.visible()) return { name: n.name, drawn: false };
      const label = node.style('label');
      const fontPx = parseFloat(node.style('font-size')) * zoom;
      const labelDrawn = Boolean(label) && node.style('text-opacity') !== '0' && drawnAt(node);
      const bb = node.boundingBox({ includeNodes: false, includeLabels: true, includeEdges: false });
      return {
        name: n.name, drawn: true, label, labelDrawn, fontPx,
        box: [bb.x1, bb.y1, bb.x2, bb.y2], labelOnScreen: onScreen(bb),
      };
    });
    const overlaps = [];
    const labelled = nodes.filter((n) => n.labelDrawn);
    for (let i = 0; i < labelled.length; i++) {
      for (let j = i + 1; j < labelled.length; j++) {
        const a = labelled[i].box, b = labelled[j].box;
        if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) {
          overlaps.push([labelled[i].name, labelled[j].name]);
        }
      }
    }
    const topIds = new Set(ranked.map((n) => n.id));
    const topEdges = cy.edges().filter((e) => topIds.has(e.source().id()) && topIds.has(e.target().id()));
    const edgeWidthPx = topEdges.map((e) => parseFloat(e.style('width')) * zoom);
    const edgeOpacity = topEdges.map((e) => parseFloat(e.style('opacity')));
    // every label drawn on screen, top 30 or not, for the overlap check of small graphs
    const all = cy.nodes(':visible').filter((node) => node.style('label') && drawnAt(node)).map((node) => {
      const bb = node.boundingBox({ includeNodes: false, includeLabels: true, includeEdges: false });
      return { name: node.data('name'), box: [bb.x1, bb.y1, bb.x2, bb.y2] };
    }).filter((n) => onScreen({ x1: n.box[0], y1: n.box[1], x2: n.box[2], y2: n.box[3] }));
    let allOverlaps = 0;
    for (let i = 0; i < all.length; i++) {
      for (let j = i + 1; j < all.length; j++) {
        const a = all[i].box, b = all[j].box;
        if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]) allOverlaps++;
      }
    }
    return {
      zoom, canvas: [box.width, box.height], nodesDrawn: cy.nodes(':visible').length,
      edgesDrawn: cy.edges(':visible').length, top: nodes, overlaps,
      topEdges: topEdges.length, edgeWidthPx, edgeOpacity,
      labelsOnScreen: all.length, allOverlaps,
    };
  }, top);
  console.log(JSON.stringify({ ...seen, errors }));
} finally {
  await browser.close();
}
