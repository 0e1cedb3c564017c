import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { TokensPanel } from "@/components/auth/tokens-panel";
import { UsersPanel } from "@/components/auth/users-panel";
import { pageUser } from "@/server/auth/page-user";

export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const user = await pageUser();
  if (user?.role !== "admin") redirect("/");
  return (
    <>
      <div className="page-head">
        <h1>Admin</h1>
        <span className="sub">Users, roles and API tokens</span>
      </div>
      <UsersPanel />
      <TokensPanel />
    </>
  );
}
