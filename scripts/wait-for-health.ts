/** Poll a health URL until it answers 200 (true), ms pass or giveUp() says so (false). */
export async function waitForHealth(url: string, ms: number, giveUp: () => boolean = () => false): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end && !giveUp()) {
    try {
      if ((await fetch(url)).ok) return true;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
