// Time a `kg viz` page in headless Chromium: load until drawn, search + click, zoom.
// Usage: KG_VIZ_FILE=graph.html KG_SEARCH=text node viz_timing.mjs   (prints JSON)
import { launchChromium } from './chromium.mjs';
import { pathToFileURL } from 'node:url';

const env = process.env;
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  let t = Date.now();
  await page.goto(pathToFileURL(env.KG_VIZ_FILE).href);
  await page.waitForFunction(() => window.kgViz !== undefined, null, { timeout: 120000 });
  const loadMs = Date.now() - t;
  const drawn = await page.evaluate(() => window.kgViz.cy.nodes(':visible').length);
  t = Date.now();
  await page.fill('#search', env.KG_SEARCH || 'learning');
  await page.locator('#matches button').first().click();
  await page.locator('#details h2').waitFor();
  const searchClickMs = Date.now() - t;
  const zoomMs = await page.evaluate(async () => {
    const cy = window.kgViz.cy;
    const t0 = performance.now();
    for (let i = 0; i < 10; i++) {
      cy.zoom(cy.zoom() * 1.1);
      await new Promise((r) => requestAnimationFrame(() => r()));
    }
    return (performance.now() - t0) / 10;
  });
  console.log(JSON.stringify({ drawn, loadMs, searchClickMs, zoomFrameMs: Math.round(zoomMs), errors }));
} finally {
  await browser.close();
}
