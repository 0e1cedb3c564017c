"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Overview" },
  { href: "/workers", label: "Workers" },
  { href: "/routing", label: "Routing" },
  { href: "/sessions", label: "Sessions" },
  { href: "/planner", label: "Planner" },
  { href: "/policies", label: "Policies" },
  { href: "/sources", label: "Sources" },
];

export function Nav() {
  const pathname = usePathname();
  return (
    <nav className="nav" aria-label="Main">
      {LINKS.map((l) => (
        <Link key={l.href} href={l.href} aria-current={pathname === l.href || (l.href !== "/" && pathname.startsWith(`${l.href}/`)) ? "page" : undefined}>
          {l.label}
        </Link>
      ))}
    </nav>
  );
}
