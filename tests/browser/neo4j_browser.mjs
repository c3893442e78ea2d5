// Open the Neo4j Browser served by a kg test server, connect, run one saved query,
// and report how many nodes the Browser drew. Driven by Playwright on the system Chromium.
// Environment: KG_BROWSER_URL, KG_BOLT_URL, NEO4J_PASSWORD, KG_QUERY (Cypher),
// KG_PARAMS (JSON object), KG_SCREENSHOT (PNG path), CHROMIUM (default /usr/bin/chromium).
// Prints one JSON line: {"nodes": N, "relationships": M, "errors": [...]}.
import { launchChromium } from './chromium.mjs';

const env = process.env;
const browser = await launchChromium();
const errors = [];
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
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
  for (const [name, value] of Object.entries(JSON.parse(env.KG_PARAMS || '{}'))) {
    await run(`:param ${name} => ${JSON.stringify(value)}`);
    await page.waitForTimeout(2000); // the parameter is set before the query runs, also on a busy machine
  }
  await run(env.KG_QUERY);
  const nodes = page.locator('svg g.node');
  await nodes.first().waitFor({ timeout: 120000 });
  await page.waitForTimeout(2000); // let the layout settle before the screenshot
  const counts = {
    nodes: await nodes.count(),
    relationships: await page.locator('svg g.relationship').count(),
  };
  await page.screenshot({ path: env.KG_SCREENSHOT, fullPage: false });
  console.log(JSON.stringify({ ...counts, errors }));
} finally {
  await browser.close();
}
