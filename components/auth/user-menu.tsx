/** The signed-in user and a sign-out button (a plain form post: works without script). */
export function UserMenu({ name, role }: { name: string; role: string }) {
  return (
    <form className="auth-user" method="post" action="/api/auth/logout" aria-label="Account">
      <span data-testid="current-user">
        {name} <span className="sub">({role})</span>
      </span>
      <button type="submit" className="button">
        Sign out
      </button>
    </form>
  );
}
