// Open a page written by `kg viz` from hostile data, open every node's details and report
// what ran. Environment: KG_VIZ_FILE (the HTML), KG_SCREENSHOT (PNG path), CHROMIUM.
// Prints one JSON line: {"drawn", "names", "hrefs", "pwned", "dialogs", "title", "errors"}.
import { launchChromium, newPage } from './chromium.mjs';
import { pathToFileURL } from 'node:url';

const env = process.env;
const browser = await launchChromium();
const errors = [];
const dialogs = [];
try {
  const page = await newPage(browser, errors);
  page.on('dialog', async (d) => { dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(pathToFileURL(env.KG_VIZ_FILE).href);
  await page.waitForFunction(() => window.kgViz !== undefined, null, { timeout: 30000 });
  const drawn = await page.evaluate(() => window.kgViz.cy.nodes(':visible').length);
  const ids = await page.evaluate(() => window.kgViz.data.nodes.map((n) => n.id));
  const names = [];
  const hrefs = [];
  for (const id of ids) {
    await page.evaluate((i) => window.kgViz.focus(i), id);
    names.push(await page.locator('#details h2').innerText());
    for (const a of await page.locator('#details a').all()) hrefs.push(await a.getAttribute('href'));
  }
  await page.waitForTimeout(300);
  const pwned = await page.evaluate(() => window.__pwned || 0);
  const title = await page.title();
  await page.screenshot({ path: env.KG_SCREENSHOT });
  console.log(JSON.stringify({ drawn, names, hrefs, pwned, dialogs, title, errors }));
} finally {
  await browser.close();
}
