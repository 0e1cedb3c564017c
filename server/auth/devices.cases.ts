import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { deleteExpiredAuth } from "../../db/store/auth";
import type { Store } from "../../db/store/store";
import type { StoreEngine, TwoStores } from "../../test/stores";
import { changeUser, ensureDemoAdmin, inviteUser, redeemLink } from "./accounts";
import { DEVICE_DAYS, forgetDevices, knownDevice, MAX_DEVICES, rememberDevice } from "./devices";
import { digestHex } from "./secrets";

// Known devices over the store, written once and run on each engine (devices.test.ts: SQLite; devices.pg.test.ts:
// PostgreSQL). `a` and `b` are two dashboard processes sharing one database.

const T = 1_800_000_000_000;
const DAY = 86_400_000;
const PW = "correct horse battery";

const addUser = async (s: Store, username: string) =>
  (
    await s.db
      .insert(s.t.users)
      .values({ username, role: "operator", passwordHash: null, createdAt: T })
      .returning({ id: s.t.users.id })
  )[0]!.id;

const deviceIds = async (s: Store) => (await s.db.select({ id: s.t.knownDevices.id }).from(s.t.knownDevices)).length;

export function devicesCases(e: StoreEngine): void {
  describe.skipIf(e.skip)(`known devices on ${e.engine}`, () => {
    let s: TwoStores;
    beforeEach(async () => {
      s = await e.open();
    });
    afterEach(() => s.close());

    it("a browser that signed in is known to its account only, until 180 days after its last sign-in", async () => {
      const ann = await addUser(s.a, "ann");
      await addUser(s.a, "bob");
      const { value, expiresAt } = await rememberDevice(s.a, ann, null, T);
      expect(expiresAt).toBe(T + DEVICE_DAYS * DAY);
      expect(value).toMatch(/^syd_[\w-]{43}$/);
      expect(await knownDevice(s.b, value, "ann", T + 1)).toBe(digestHex(value));
      expect(await knownDevice(s.b, value, "bob", T + 1)).toBeNull();
      expect(await knownDevice(s.b, value, "ann", expiresAt)).toBeNull();
      const stored = (await s.b.db.select().from(s.b.t.knownDevices)).map((r) => r.id);
      expect(stored).toEqual([digestHex(value)]);
      // Signing in again from it keeps the value and starts its time again.
      const again = await rememberDevice(s.b, ann, value, T + 10 * DAY);
      expect(again).toEqual({ value, expiresAt: T + 10 * DAY + DEVICE_DAYS * DAY });
      expect(await knownDevice(s.a, value, "ann", expiresAt + 1)).toBe(digestHex(value));
      expect(await deviceIds(s.a)).toBe(1);
    });

    it.each([
      ["no cookie", null],
      ["an empty cookie", ""],
      ["a forged value", "syd_forged"],
      ["a value too long to be ours", "x".repeat(5000)],
    ])("%s is no known device, and signing in makes a new one", async (_, value) => {
      const ann = await addUser(s.a, "ann");
      expect(await knownDevice(s.a, value, "ann", T)).toBeNull();
      const made = await rememberDevice(s.a, ann, value, T);
      expect(made.value).not.toBe(value);
      expect(await deviceIds(s.a)).toBe(1);
    });

    it("another user's device cookie is not reused: signing in from that browser makes a device of one's own", async () => {
      const [ann, bob] = [await addUser(s.a, "ann"), await addUser(s.a, "bob")];
      const annDevice = await rememberDevice(s.a, ann, null, T);
      const bobDevice = await rememberDevice(s.b, bob, annDevice.value, T + 1);
      expect(bobDevice.value).not.toBe(annDevice.value);
      expect(await knownDevice(s.a, annDevice.value, "ann", T + 2)).not.toBeNull();
      expect(await knownDevice(s.a, bobDevice.value, "bob", T + 2)).not.toBeNull();
    });

    it(`a user keeps at most ${MAX_DEVICES} devices: one more forgets the least recently used`, async () => {
      const ann = await addUser(s.a, "ann");
      const bob = await addUser(s.a, "bob");
      const bobs = await rememberDevice(s.a, bob, null, T);
      const values: string[] = [];
      for (let i = 0; i < MAX_DEVICES; i++) values.push((await rememberDevice(s.a, ann, null, T + i)).value);
      await rememberDevice(s.b, ann, values[0], T + 100);
      await rememberDevice(s.b, ann, null, T + 101);
      expect(await deviceIds(s.a)).toBe(MAX_DEVICES + 1);
      expect(await knownDevice(s.a, values[0], "ann", T + 102)).not.toBeNull();
      expect(await knownDevice(s.a, values[1], "ann", T + 102)).toBeNull();
      expect(await knownDevice(s.a, values[2], "ann", T + 102)).not.toBeNull();
      expect(await knownDevice(s.a, bobs.value, "bob", T + 102)).not.toBeNull();
    });

    it("a new password, a disabled account or a removed user forgets the user's devices; others keep theirs", async () => {
      await ensureDemoAdmin(s.a, "boss", PW, T);
      const { id: vera, secret } = await inviteUser(s.a, { username: "vera", role: "viewer" }, T);
      const olga = await addUser(s.a, "olga");
      const zoe = await addUser(s.a, "zoe");
      const veras = await rememberDevice(s.a, vera, null, T);
      const olgas = await rememberDevice(s.a, olga, null, T);
      const zoes = await rememberDevice(s.a, zoe, null, T);
      const boss = (await s.a.db.select().from(s.a.t.users)).find((u) => u.username === "boss")!.id;
      const bosses = await rememberDevice(s.a, boss, null, T);

      await redeemLink(s.b, { secret, password: PW }, T + 1);
      expect(await knownDevice(s.a, veras.value, "vera", T + 2)).toBeNull();
      await ensureDemoAdmin(s.b, "boss", "a new run's password 42", T + 2);
      expect(await knownDevice(s.a, bosses.value, "boss", T + 3)).toBeNull();
      await changeUser(s.b, olga, { disabled: true });
      expect(await knownDevice(s.a, olgas.value, "olga", T + 3)).toBeNull();
      await s.b.db.delete(s.b.t.users).where(eq(s.b.t.users.id, zoe));
      expect(await deviceIds(s.a)).toBe(0);
      expect(zoes.value).toBeTruthy();
    });

    it("forgetDevices drops one user's devices; housekeeping drops the expired ones", async () => {
      const [ann, bob] = [await addUser(s.a, "ann"), await addUser(s.a, "bob")];
      await rememberDevice(s.a, ann, null, T);
      const bobs = await rememberDevice(s.a, bob, null, T + DAY);
      await forgetDevices(s.b, ann);
      expect(await deviceIds(s.a)).toBe(1);
      await rememberDevice(s.a, ann, null, T);
      await deleteExpiredAuth(s.b, T + DEVICE_DAYS * DAY + 1);
      expect(await deviceIds(s.a)).toBe(1);
      expect(await knownDevice(s.a, bobs.value, "bob", T + DEVICE_DAYS * DAY + 1)).not.toBeNull();
    });
  });
}
