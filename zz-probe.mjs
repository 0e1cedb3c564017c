import { chromium } from "playwright-core";
const base = process.argv[2];
const b = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--no-sandbox"] });
const page = await (await b.newContext()).newPage();
page.on("console", (m) => console.log("console", m.type(), m.text().slice(0, 200)));
page.on("pageerror", (e) => console.log("pageerror", e.message.slice(0, 300)));
await page.goto(base + "/login");
await page.getByLabel("Username").fill("e2e-admin");
await page.getByLabel("Password").fill("e2e-password-0123456789");
await page.getByRole("button", { name: /sign in/i }).click();
await page.waitForURL((u) => !u.pathname.startsWith("/login"));
await page.addInitScript(() => {
  window.__lt = [];
  new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__lt.push([Math.round(e.startTime), Math.round(e.duration)]); }).observe({ type: "longtask", buffered: true });
});
const client = await page.context().newCDPSession(page);
await client.send("Profiler.enable");
await client.send("Profiler.start");
const t0 = Date.now();
await page.goto(base + process.argv[3]);
try {
  await page.getByTestId("policy-marks").waitFor({ timeout: 30000 });
  console.log("marks after", Date.now() - t0, "ms:", (await page.getByTestId("policy-marks").textContent()).slice(0, 300));
  console.log("longtasks", JSON.stringify(await page.evaluate(() => window.__lt)));
  const { profile } = await client.send("Profiler.stop");
  const self = new Map();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = profile.timeDeltas; let i = 0;
  for (const id of profile.samples) { const n = byId.get(id); const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`; self.set(k, (self.get(k) ?? 0) + (dt[i++] ?? 0)); }
  console.log([...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 25).map(([k, v]) => `${(v / 1000).toFixed(0)}ms ${k}`).join("\n"));
} catch (e) { console.log("no marks:", e.message.slice(0, 100)); await page.screenshot({ path: "/tmp/probe.png" }); }
await b.close();
