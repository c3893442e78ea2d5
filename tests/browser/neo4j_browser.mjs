// Open the Neo4j Browser served by a kg test server, connect, run one saved query,
// and report how many nodes the Browser drew. Driven by Playwright on the system Chromium.
// Environment: KG_BROWSER_URL, KG_BOLT_URL, NEO4J_PASSWORD, KG_QUERY (Cypher),
// KG_PARAMS (JSON object), KG_SCREENSHOT (PNG path), CHROMIUM (default /usr/bin/chromium).
// Prints one JSON line: {"nodes": N, "relationships": M, "errors": [...]}.
import { launchChromium } from './chromium.mjs';

const env = process.env;
const browser = await launchChromium();
const errors = [];
let page;
let retried = null; // why the query was asked a second time, if it was
try {
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('pageerror', (err) => errors.push(String(err)));
  await page.goto(env.KG_BROWSER_URL);
  await page.getByTestId('boltaddress').fill(env.KG_BOLT_URL.replace(/^\w+:\/\//, ''));
  await page.getByTestId('username').fill('neo4j');
  await page.getByTestId('password').fill(env.NEO4J_PASSWORD);
  await page.getByTestId('connect').click();
  await page.getByText('You are connected as user').first().waitFor({ timeout: 60000 });

  const run = async (text) => {
    const editor = page.locator('#monaco-main-editor, [data-testid="activeEditor"]').first();
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(text);
    await page.getByTestId('editor-Run').first().click();
  };
  const nodes = page.locator('svg g.node');
  const ask = async () => {
    for (const [name, value] of Object.entries(JSON.parse(env.KG_PARAMS || '{}'))) {
      await run(`:param ${name} => ${JSON.stringify(value)}`);
      await page.waitForTimeout(2000); // the parameter is set before the query runs
    }
    await run(env.KG_QUERY);
    await nodes.first().waitFor({ timeout: 60000 });
  };
  try {
    await ask();
  } catch (err) {
    // a busy machine can lose the first editor input: ask once more before failing
    retried = String(err).split('\n')[0];
    await ask();
  }
  await page.waitForTimeout(2000); // let the layout settle before the screenshot
  const counts = {
    nodes: await nodes.count(),
    relationships: await page.locator('svg g.relationship').count(),
  };
  await page.screenshot({ path: env.KG_SCREENSHOT, fullPage: false });
  console.log(JSON.stringify({ ...counts, errors, retried }));
} catch (err) {
  // what the Browser showed when it failed, beside the screenshot a pass writes
  if (page) await page.screenshot({ path: env.KG_SCREENSHOT.replace(/\.png$/, '-failed.png') });
  throw err;
} finally {
  await browser.close();
}
