"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { UserMenu } from "@/components/auth/user-menu";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/workers", label: "Workers" },
  { href: "/routing", label: "Routing" },
  { href: "/sessions", label: "Sessions" },
  { href: "/planner", label: "Planner" },
  { href: "/capacity", label: "Capacity" },
  { href: "/alerts", label: "Alerts" },
  { href: "/policies", label: "Policies" },
  { href: "/sources", label: "Sources" },
];

export function Nav({ user }: { user: { name: string; role: string } }) {
  const pathname = usePathname();
  const links = user.role === "admin" ? [...LINKS, { href: "/admin", label: "Admin" }] : LINKS;
  return (
    <>
      <nav className="nav" aria-label="Main">
        {links.map((l) => (
          <Link
            key={l.href}
            href={l.href}
            aria-current={
              pathname === l.href || (l.href !== "/" && pathname.startsWith(`${l.href}/`)) ? "page" : undefined
            }
          >
            {l.label}
          </Link>
        ))}
      </nav>
      <UserMenu name={user.name} role={user.role} />
    </>
  );
}
