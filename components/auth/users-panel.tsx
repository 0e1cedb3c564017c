"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/components/providers/trpc-provider";
import { formatDateTime } from "@/components/format";
import { LoadError } from "@/components/ui/load-error";
import { refreshAfterWrite } from "@/components/providers/refresh-after-write";

const ROLES = ["viewer", "operator", "admin"] as const;
type Role = (typeof ROLES)[number];

const when = (t: number | null) => (t === null ? "never" : formatDateTime(t));

/** Accounts: invite (shows the one-time link), change role, disable or enable. */
export function UsersPanel() {
  const trpc = useTRPC();
  const qc = useQueryClient();
  const users = useQuery(trpc.users.list.queryOptions());
  const refresh = () => void refreshAfterWrite(qc, { queryKey: trpc.users.list.queryKey() });
  const invite = useMutation(trpc.users.invite.mutationOptions({ onSuccess: refresh }));
  const setRole = useMutation(trpc.users.setRole.mutationOptions({ onSuccess: refresh }));
  const setDisabled = useMutation(trpc.users.setDisabled.mutationOptions({ onSuccess: refresh }));
  const [username, setUsername] = useState("");
  const [role, setRoleInput] = useState<Role>("viewer");
  const change = setRole.error ?? setDisabled.error;

  function onInvite(e: FormEvent) {
    e.preventDefault();
    invite.mutate({ username, role }, { onSuccess: () => setUsername("") });
  }

  return (
    <section className="card admin-section" aria-labelledby="users-title">
      <h2 id="users-title">Users</h2>
      <form className="admin-form" onSubmit={onInvite} aria-label="Invite a user">
        <label>
          Username
          <input required minLength={2} maxLength={64} value={username} onChange={(e) => setUsername(e.target.value)} />
        </label>
        <label>
          Role
          <select value={role} onChange={(e) => setRoleInput(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r}>{r}</option>
            ))}
          </select>
        </label>
        <button className="button" type="submit" disabled={invite.isPending}>
          Invite
        </button>
      </form>
      {invite.error && (
        <p role="alert" className="auth-error">
          {invite.error.message}
        </p>
      )}
      {invite.data && (
        <div className="notice" role="status">
          Send this one-time link to the user (valid 7 days, shown only now):
          <pre data-testid="invite-link">{`${window.location.origin}${invite.data.path}`}</pre>
        </div>
      )}
      {change && (
        <p role="alert" className="auth-error">
          {change.message}
        </p>
      )}
      {users.isError && <LoadError what="users" message={users.error.message} onRetry={() => void users.refetch()} />}
      {users.isPending && <p className="sub">Loading users…</p>}
      {users.data && (
        <table className="admin-table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Last sign-in</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id}>
                <td>{u.username}</td>
                <td>
                  <select
                    aria-label={`Role of ${u.username}`}
                    value={u.role}
                    onChange={(e) => setRole.mutate({ id: u.id, role: e.target.value as Role })}
                  >
                    {ROLES.map((r) => (
                      <option key={r}>{r}</option>
                    ))}
                  </select>
                </td>
                <td>{u.disabled ? "disabled" : u.pending ? "invited" : "active"}</td>
                <td>{when(u.lastLoginAt)}</td>
                <td>
                  <button
                    className="button"
                    type="button"
                    onClick={() => setDisabled.mutate({ id: u.id, disabled: !u.disabled })}
                  >
                    {u.disabled ? `Enable ${u.username}` : `Disable ${u.username}`}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
