"use client";
import { useSearchParams } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { safeNext } from "@/lib/safe-next";
import { postJson } from "./post-json";

/** Username and password sign-in; a #username=…&password=… fragment (the npm start demo link) signs in at once. */
export function LoginForm() {
  const params = useSearchParams();
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const started = useRef(false);

  async function signIn(u: string, p: string) {
    setBusy(true);
    setError(null);
    try {
      await postJson("/api/auth/login", { username: u, password: p });
      window.location.assign(safeNext(params.get("next"), window.location.origin));
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  }

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    const hash = new URLSearchParams(window.location.hash.slice(1));
    const u = hash.get("username");
    const p = hash.get("password");
    if (!u || !p) return;
    history.replaceState(null, "", window.location.pathname + window.location.search);
    setUsername(u);
    void signIn(u, p);
  }, []);

  function onSubmit(e: FormEvent) {
    e.preventDefault();
    void signIn(username, password);
  }

  return (
    <form className="card auth-card" onSubmit={onSubmit} aria-labelledby="login-title">
      <h1 id="login-title">Sign in to Switchyard</h1>
      <label>
        Username
        <input
          name="username"
          autoComplete="username"
          required
          maxLength={64}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          autoFocus
        />
      </label>
      <label>
        Password
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          required
          maxLength={256}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
        />
      </label>
      {error && (
        <p role="alert" className="auth-error">
          {error}
        </p>
      )}
      <button type="submit" className="button auth-primary" disabled={busy}>
        {busy ? "Signing in…" : "Sign in"}
      </button>
      <p className="sub">
        No account yet? Ask an admin for an invite link. A new installation prints a one-time setup link when it starts.
      </p>
    </form>
  );
}
