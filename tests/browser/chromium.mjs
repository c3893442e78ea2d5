// The system Chromium, headless, with the flags this closed network needs (no background
// connections, no component updates). CHROMIUM overrides the path (default /usr/bin/chromium).
import { chromium } from 'playwright-core';

export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
           '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

// A new page of `browser` at 1400x900 whose console errors and warnings and page errors
// are collected in `errors`.
export async function newPage(browser, errors) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`${msg.type()}: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  return page;
}
