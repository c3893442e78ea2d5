// Open a page written by `kg viz` in headless Chromium, count the nodes drawn, search for
// an entity, click it, and read the details panel. Environment: KG_VIZ_FILE (the HTML),
// KG_SEARCH (text to search), KG_SCREENSHOT (PNG path), CHROMIUM (default /usr/bin/chromium).
// Prints one JSON line: {"drawn", "shownCount", "withoutMetrics", "dataNodes", "matches",
// "selected", "details", "marks", "errors"}.
import { launchChromium, newPage } from './chromium.mjs';
import { pathToFileURL } from 'node:url';

const env = process.env;
const browser = await launchChromium();
const errors = [];
try {
  const page = await newPage(browser, errors);
  page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()}`));
  await page.goto(pathToFileURL(env.KG_VIZ_FILE).href);
  await page.waitForFunction(() => window.kgViz !== undefined, null, { timeout: 30000 });
  const drawn = await page.evaluate(() => window.kgViz.cy.nodes(':visible').length);
  const dataNodes = await page.evaluate(() => window.kgViz.data.nodes.length);
  const shownCount = Number(await page.locator('#shown').getAttribute('data-count'));
  await page.locator('#types input[data-type="Metric"]').uncheck();
  const withoutMetrics = await page.evaluate(() => window.kgViz.cy.nodes().length);
  await page.locator('#types input[data-type="Metric"]').check();
  await page.fill('#search', env.KG_SEARCH);
  const matches = await page.locator('#matches button').allTextContents();
  await page.locator('#matches button').first().click();
  await page.waitForTimeout(500);
  const selected = await page.evaluate(() => window.kgViz.cy.nodes(':selected').map((n) => n.data('name')));
  const details = await page.locator('#details').innerText();
  const marks = await page.locator('#details mark').allTextContents();
  await page.screenshot({ path: env.KG_SCREENSHOT });
  console.log(JSON.stringify({
    drawn, shownCount, withoutMetrics, dataNodes, matches, selected, details, marks, errors,
  }));
} finally {
  await browser.close();
}
