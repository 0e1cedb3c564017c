"use client";
import { useEffect, useState, type FormEvent } from "react";
import { setPasswordInput } from "@/lib/password-rules";
import { postJson } from "./post-json";

type Link = { purpose: "setup" | "invite"; username: string | null };

/** A one-time setup link (#secret) creates the first admin; an invite link sets the invited user's password. */
export function SetupForm() {
  const [secret, setSecret] = useState<string | null>(null);
  const [link, setLink] = useState<Link | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [confirm, setConfirm] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [passwordError, setPasswordError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const s = window.location.hash.slice(1);
    if (!s) {
      setLoadError("This page needs the link printed by the server or sent by an admin.");
      return;
    }
    setSecret(s);
    postJson<Link>("/api/auth/link", { secret: s }).then(setLink, (err: Error) => setLoadError(err.message));
  }, []);

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setPasswordError(null);
    setBusy(true);
    // The route's own rules, here first: the reason shows under the field before anything is sent.
    const checked = await setPasswordInput.safeParseAsync({
      secret: secret ?? "",
      username: link?.purpose === "setup" ? username : (link?.username ?? undefined),
      password,
    });
    const issue = checked.error?.issues[0];
    if (issue) {
      if (issue.path[0] === "password") setPasswordError(issue.message);
      else setError(`${issue.path.map(String).join(".")}: ${issue.message}`);
      return setBusy(false);
    }
    if (password !== confirm) {
      setError("The passwords do not match.");
      return setBusy(false);
    }
    try {
      await postJson("/api/auth/setup", { secret, password, ...(link?.purpose === "setup" ? { username } : {}) });
      history.replaceState(null, "", "/setup");
      window.location.assign("/");
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (message.startsWith("password: ")) setPasswordError(message.slice("password: ".length));
      else setError(message);
      setBusy(false);
    }
  }

  if (loadError)
    return (
      <section className="card auth-card">
        <h1>Set up your account</h1>
        <p role="alert" className="auth-error">
          {loadError}
        </p>
        <a href="/login">Go to sign-in</a>
      </section>
    );
  if (!link)
    return (
      <section className="card auth-card" aria-busy="true">
        <h1>Set up your account</h1>
        <p className="sub">Checking the link…</p>
      </section>
    );
  return (
    <form className="card auth-card" onSubmit={onSubmit} aria-labelledby="setup-title">
      <h1 id="setup-title">
        {link.purpose === "setup" ? "Create the first admin" : `Welcome, ${link.username ?? ""}`}
      </h1>
      <p className="sub">
        {link.purpose === "setup"
          ? "This link works once. The account you create here manages users and tokens."
          : "Choose a password to finish your account."}
      </p>
      {link.purpose === "setup" && (
        <label>
          Username
          <input
            name="username"
            autoComplete="username"
            required
            minLength={2}
            maxLength={64}
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            autoFocus
          />
        </label>
      )}
      <label>
        Password (at least 12 characters)
        <input
          name="password"
          type="password"
          autoComplete="new-password"
          required
          maxLength={256}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={passwordError ? true : undefined}
          aria-describedby={passwordError ? "password-error password-rule" : "password-rule"}
        />
      </label>
      {passwordError && (
        <p id="password-error" role="alert" className="auth-error">
          {passwordError}
        </p>
      )}
      <p id="password-rule" className="sub">
        Not a common password, nor your name with a few digits: several uncommon words work well.
      </p>
      <label>
        Repeat password
        <input
          name="confirm"
          type="password"
          autoComplete="new-password"
          required
          maxLength={256}
          value={confirm}
          onChange={(e) => setConfirm(e.target.value)}
        />
      </label>
      {error && (
        <p role="alert" className="auth-error">
          {error}
        </p>
      )}
      <button type="submit" className="button auth-primary" disabled={busy}>
        {busy ? "Saving…" : link.purpose === "setup" ? "Create admin and sign in" : "Set password and sign in"}
      </button>
    </form>
  );
}
